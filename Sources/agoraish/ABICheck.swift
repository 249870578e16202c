import CAgoraishABI

// Compile-time proof that every @_cdecl function has exactly the type that
// include/agoraish.h declares: each assignment below fails to compile if a
// parameter or result type drifts. Tests/python/test_abi.py checks that every
// function the header declares is listed here.
private func checkSignaturesAgainstHeader() {
    var getVersion = CAgoraishABI.agoraish_get_version
    getVersion = abi_get_version
    var getErrorDescription = CAgoraishABI.agoraish_get_error_description
    getErrorDescription = abi_get_error_description
    var getLastError = CAgoraishABI.agoraish_get_last_error
    getLastError = abi_get_last_error
    var engineCreate = CAgoraishABI.agoraish_engine_create
    engineCreate = abi_engine_create
    var engineRelease = CAgoraishABI.agoraish_engine_release
    engineRelease = abi_engine_release
    var engineSetParameters = CAgoraishABI.agoraish_engine_set_parameters
    engineSetParameters = abi_engine_set_parameters
    var engineGetParameter = CAgoraishABI.agoraish_engine_get_parameter
    engineGetParameter = abi_engine_get_parameter
    var engineSetLogFile = CAgoraishABI.agoraish_engine_set_log_file
    engineSetLogFile = abi_engine_set_log_file
    var engineSetLogFilter = CAgoraishABI.agoraish_engine_set_log_filter
    engineSetLogFilter = abi_engine_set_log_filter
    var engineSetLogLevel = CAgoraishABI.agoraish_engine_set_log_level
    engineSetLogLevel = abi_engine_set_log_level
    var engineSetLogFileSize = CAgoraishABI.agoraish_engine_set_log_file_size
    engineSetLogFileSize = abi_engine_set_log_file_size
    var engineSetChannelProfile = CAgoraishABI.agoraish_engine_set_channel_profile
    engineSetChannelProfile = abi_engine_set_channel_profile
    var engineSetClientRole = CAgoraishABI.agoraish_engine_set_client_role
    engineSetClientRole = abi_engine_set_client_role
    var engineJoinChannel = CAgoraishABI.agoraish_engine_join_channel
    engineJoinChannel = abi_engine_join_channel
    var engineJoinChannelWithUserAccount = CAgoraishABI.agoraish_engine_join_channel_with_user_account
    engineJoinChannelWithUserAccount = abi_engine_join_channel_with_user_account
    var engineRegisterLocalUserAccount = CAgoraishABI.agoraish_engine_register_local_user_account
    engineRegisterLocalUserAccount = abi_engine_register_local_user_account
    var engineGetUserInfoByUserAccount = CAgoraishABI.agoraish_engine_get_user_info_by_user_account
    engineGetUserInfoByUserAccount = abi_engine_get_user_info_by_user_account
    var engineGetUserInfoByUid = CAgoraishABI.agoraish_engine_get_user_info_by_uid
    engineGetUserInfoByUid = abi_engine_get_user_info_by_uid
    var engineLeaveChannel = CAgoraishABI.agoraish_engine_leave_channel
    engineLeaveChannel = abi_engine_leave_channel
    var engineRenewToken = CAgoraishABI.agoraish_engine_renew_token
    engineRenewToken = abi_engine_renew_token
    var engineSwitchChannel = CAgoraishABI.agoraish_engine_switch_channel
    engineSwitchChannel = abi_engine_switch_channel
    var engineGetCallId = CAgoraishABI.agoraish_engine_get_call_id
    engineGetCallId = abi_engine_get_call_id
    var engineGetConnectionState = CAgoraishABI.agoraish_engine_get_connection_state
    engineGetConnectionState = abi_engine_get_connection_state
    var serverCreate = CAgoraishABI.agoraish_server_create
    serverCreate = abi_server_create
    var serverStart = CAgoraishABI.agoraish_server_start
    serverStart = abi_server_start
    var serverStop = CAgoraishABI.agoraish_server_stop
    serverStop = abi_server_stop
    var serverRelease = CAgoraishABI.agoraish_server_release
    serverRelease = abi_server_release
    var serverGetUrl = CAgoraishABI.agoraish_server_get_url
    serverGetUrl = abi_server_get_url
    var serverGetHttpPort = CAgoraishABI.agoraish_server_get_http_port
    serverGetHttpPort = abi_server_get_http_port
    _ = (engineSetChannelProfile, engineSetClientRole, engineJoinChannel, engineJoinChannelWithUserAccount, engineRegisterLocalUserAccount, engineGetUserInfoByUserAccount, engineGetUserInfoByUid, engineLeaveChannel, engineRenewToken, engineSwitchChannel, engineGetCallId, engineGetConnectionState, serverCreate, serverStart, serverStop, serverRelease, serverGetUrl, serverGetHttpPort)
    var engineSetAudioProfile = CAgoraishABI.agoraish_engine_set_audio_profile
    engineSetAudioProfile = abi_engine_set_audio_profile
    var engineSetExternalAudioSource = CAgoraishABI.agoraish_engine_set_external_audio_source
    engineSetExternalAudioSource = abi_engine_set_external_audio_source
    var enginePushExternalAudioFrame = CAgoraishABI.agoraish_engine_push_external_audio_frame
    enginePushExternalAudioFrame = abi_engine_push_external_audio_frame
    var engineSetExternalAudioSink = CAgoraishABI.agoraish_engine_set_external_audio_sink
    engineSetExternalAudioSink = abi_engine_set_external_audio_sink
    var enginePullPlaybackAudioFrame = CAgoraishABI.agoraish_engine_pull_playback_audio_frame
    enginePullPlaybackAudioFrame = abi_engine_pull_playback_audio_frame
    _ = (engineSetAudioProfile, engineSetExternalAudioSource, enginePushExternalAudioFrame, engineSetExternalAudioSink, enginePullPlaybackAudioFrame)
    _ = (getVersion, getErrorDescription, getLastError, engineCreate, engineRelease,
         engineSetParameters, engineGetParameter, engineSetLogFile, engineSetLogFilter,
         engineSetLogLevel, engineSetLogFileSize)
}
