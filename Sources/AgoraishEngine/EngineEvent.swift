import AgoraishSession

/// Something an engine reports to its host (Agora's IRtcEngineEventHandler
/// callbacks). Delivered on the engine's event thread, in order.
public enum EngineEvent: Sendable, Equatable {
    /// onApiCallExecuted: a setter call was carried out.
    /// `error` is 0 or a positive error code; `api` is the Agora method name.
    case apiCallExecuted(error: Int32, api: String, result: String)
    /// A channel event (join, leave, users, connection state, tokens, accounts, errors).
    case channel(ClientSession.Event)
    /// An audio event (first frames, states, volumes, statistics).
    case audio(AudioEvent)
    /// A video event (first frames, sizes).
    case video(VideoEvent)
    /// A pre-call network event (last-mile test and probe).
    case network(NetworkEvent)
    /// A data event (stream messages and their errors, audio metadata, encryption errors).
    case data(DataEvent)
    /// An audio mixing or audio effect event.
    case media(MediaEvent)
}
