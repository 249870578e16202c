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
    var engineEnableAudio = CAgoraishABI.agoraish_engine_enable_audio
    engineEnableAudio = abi_engine_enable_audio
    var engineDisableAudio = CAgoraishABI.agoraish_engine_disable_audio
    engineDisableAudio = abi_engine_disable_audio
    var engineEnableLocalAudio = CAgoraishABI.agoraish_engine_enable_local_audio
    engineEnableLocalAudio = abi_engine_enable_local_audio
    var engineMuteLocalAudioStream = CAgoraishABI.agoraish_engine_mute_local_audio_stream
    engineMuteLocalAudioStream = abi_engine_mute_local_audio_stream
    var engineMuteRemoteAudioStream = CAgoraishABI.agoraish_engine_mute_remote_audio_stream
    engineMuteRemoteAudioStream = abi_engine_mute_remote_audio_stream
    var engineMuteAllRemoteAudioStreams = CAgoraishABI.agoraish_engine_mute_all_remote_audio_streams
    engineMuteAllRemoteAudioStreams = abi_engine_mute_all_remote_audio_streams
    var engineSetDefaultMuteAllRemoteAudioStreams = CAgoraishABI.agoraish_engine_set_default_mute_all_remote_audio_streams
    engineSetDefaultMuteAllRemoteAudioStreams = abi_engine_set_default_mute_all_remote_audio_streams
    var engineAdjustRecordingSignalVolume = CAgoraishABI.agoraish_engine_adjust_recording_signal_volume
    engineAdjustRecordingSignalVolume = abi_engine_adjust_recording_signal_volume
    var engineAdjustPlaybackSignalVolume = CAgoraishABI.agoraish_engine_adjust_playback_signal_volume
    engineAdjustPlaybackSignalVolume = abi_engine_adjust_playback_signal_volume
    var engineAdjustUserPlaybackSignalVolume = CAgoraishABI.agoraish_engine_adjust_user_playback_signal_volume
    engineAdjustUserPlaybackSignalVolume = abi_engine_adjust_user_playback_signal_volume
    var engineEnableAudioVolumeIndication = CAgoraishABI.agoraish_engine_enable_audio_volume_indication
    engineEnableAudioVolumeIndication = abi_engine_enable_audio_volume_indication
    var engineRegisterAudioFrameObserver = CAgoraishABI.agoraish_engine_register_audio_frame_observer
    engineRegisterAudioFrameObserver = abi_engine_register_audio_frame_observer
    var engineSetRecordingAudioFrameParameters = CAgoraishABI.agoraish_engine_set_recording_audio_frame_parameters
    engineSetRecordingAudioFrameParameters = abi_engine_set_recording_audio_frame_parameters
    var engineSetPlaybackAudioFrameParameters = CAgoraishABI.agoraish_engine_set_playback_audio_frame_parameters
    engineSetPlaybackAudioFrameParameters = abi_engine_set_playback_audio_frame_parameters
    var engineSetMixedAudioFrameParameters = CAgoraishABI.agoraish_engine_set_mixed_audio_frame_parameters
    engineSetMixedAudioFrameParameters = abi_engine_set_mixed_audio_frame_parameters
    var engineSetPlaybackAudioFrameBeforeMixingParameters = CAgoraishABI.agoraish_engine_set_playback_audio_frame_before_mixing_parameters
    engineSetPlaybackAudioFrameBeforeMixingParameters = abi_engine_set_playback_audio_frame_before_mixing_parameters
    var engineStartAudioRecording = CAgoraishABI.agoraish_engine_start_audio_recording
    engineStartAudioRecording = abi_engine_start_audio_recording
    var engineStopAudioRecording = CAgoraishABI.agoraish_engine_stop_audio_recording
    engineStopAudioRecording = abi_engine_stop_audio_recording
    var engineGetAudioDeviceCount = CAgoraishABI.agoraish_engine_get_audio_device_count
    engineGetAudioDeviceCount = abi_engine_get_audio_device_count
    var engineGetAudioDevice = CAgoraishABI.agoraish_engine_get_audio_device
    engineGetAudioDevice = abi_engine_get_audio_device
    var engineSetRecordingDevice = CAgoraishABI.agoraish_engine_set_recording_device
    engineSetRecordingDevice = abi_engine_set_recording_device
    var engineSetPlaybackDevice = CAgoraishABI.agoraish_engine_set_playback_device
    engineSetPlaybackDevice = abi_engine_set_playback_device
    var engineGetRecordingDevice = CAgoraishABI.agoraish_engine_get_recording_device
    engineGetRecordingDevice = abi_engine_get_recording_device
    var engineGetPlaybackDevice = CAgoraishABI.agoraish_engine_get_playback_device
    engineGetPlaybackDevice = abi_engine_get_playback_device
    var engineStartRecordingDeviceTest = CAgoraishABI.agoraish_engine_start_recording_device_test
    engineStartRecordingDeviceTest = abi_engine_start_recording_device_test
    var engineStopRecordingDeviceTest = CAgoraishABI.agoraish_engine_stop_recording_device_test
    engineStopRecordingDeviceTest = abi_engine_stop_recording_device_test
    var engineStartPlaybackDeviceTest = CAgoraishABI.agoraish_engine_start_playback_device_test
    engineStartPlaybackDeviceTest = abi_engine_start_playback_device_test
    var engineStopPlaybackDeviceTest = CAgoraishABI.agoraish_engine_stop_playback_device_test
    engineStopPlaybackDeviceTest = abi_engine_stop_playback_device_test
    var engineStartAudioDeviceLoopbackTest = CAgoraishABI.agoraish_engine_start_audio_device_loopback_test
    engineStartAudioDeviceLoopbackTest = abi_engine_start_audio_device_loopback_test
    var engineStopAudioDeviceLoopbackTest = CAgoraishABI.agoraish_engine_stop_audio_device_loopback_test
    engineStopAudioDeviceLoopbackTest = abi_engine_stop_audio_device_loopback_test
    _ = (engineEnableAudio, engineDisableAudio, engineEnableLocalAudio, engineMuteLocalAudioStream,
         engineMuteRemoteAudioStream, engineMuteAllRemoteAudioStreams,
         engineSetDefaultMuteAllRemoteAudioStreams, engineAdjustRecordingSignalVolume,
         engineAdjustPlaybackSignalVolume, engineAdjustUserPlaybackSignalVolume,
         engineEnableAudioVolumeIndication, engineRegisterAudioFrameObserver,
         engineSetRecordingAudioFrameParameters, engineSetPlaybackAudioFrameParameters,
         engineSetMixedAudioFrameParameters, engineSetPlaybackAudioFrameBeforeMixingParameters,
         engineStartAudioRecording, engineStopAudioRecording, engineGetAudioDeviceCount,
         engineGetAudioDevice, engineSetRecordingDevice, engineSetPlaybackDevice, engineGetRecordingDevice,
         engineGetPlaybackDevice, engineStartRecordingDeviceTest, engineStopRecordingDeviceTest,
         engineStartPlaybackDeviceTest, engineStopPlaybackDeviceTest, engineStartAudioDeviceLoopbackTest,
         engineStopAudioDeviceLoopbackTest)
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
    var engineEnableVideo = CAgoraishABI.agoraish_engine_enable_video
    engineEnableVideo = abi_engine_enable_video
    var engineDisableVideo = CAgoraishABI.agoraish_engine_disable_video
    engineDisableVideo = abi_engine_disable_video
    var engineSetVideoEncoderConfiguration = CAgoraishABI.agoraish_engine_set_video_encoder_configuration
    engineSetVideoEncoderConfiguration = abi_engine_set_video_encoder_configuration
    var engineSetExternalVideoSource = CAgoraishABI.agoraish_engine_set_external_video_source
    engineSetExternalVideoSource = abi_engine_set_external_video_source
    var enginePushExternalVideoFrame = CAgoraishABI.agoraish_engine_push_external_video_frame
    enginePushExternalVideoFrame = abi_engine_push_external_video_frame
    var engineSetupRemoteVideo = CAgoraishABI.agoraish_engine_setup_remote_video
    engineSetupRemoteVideo = abi_engine_setup_remote_video
    _ = (engineEnableVideo, engineDisableVideo, engineSetVideoEncoderConfiguration,
         engineSetExternalVideoSource, enginePushExternalVideoFrame, engineSetupRemoteVideo)
    var engineEnableLocalVideo = CAgoraishABI.agoraish_engine_enable_local_video
    engineEnableLocalVideo = abi_engine_enable_local_video
    var engineMuteLocalVideoStream = CAgoraishABI.agoraish_engine_mute_local_video_stream
    engineMuteLocalVideoStream = abi_engine_mute_local_video_stream
    var engineMuteRemoteVideoStream = CAgoraishABI.agoraish_engine_mute_remote_video_stream
    engineMuteRemoteVideoStream = abi_engine_mute_remote_video_stream
    var engineMuteAllRemoteVideoStreams = CAgoraishABI.agoraish_engine_mute_all_remote_video_streams
    engineMuteAllRemoteVideoStreams = abi_engine_mute_all_remote_video_streams
    var engineSetDefaultMuteAllRemoteVideoStreams = CAgoraishABI.agoraish_engine_set_default_mute_all_remote_video_streams
    engineSetDefaultMuteAllRemoteVideoStreams = abi_engine_set_default_mute_all_remote_video_streams
    var engineSetupLocalVideo = CAgoraishABI.agoraish_engine_setup_local_video
    engineSetupLocalVideo = abi_engine_setup_local_video
    var engineStartPreview = CAgoraishABI.agoraish_engine_start_preview
    engineStartPreview = abi_engine_start_preview
    var engineStopPreview = CAgoraishABI.agoraish_engine_stop_preview
    engineStopPreview = abi_engine_stop_preview
    var engineSetLocalRenderMode = CAgoraishABI.agoraish_engine_set_local_render_mode
    engineSetLocalRenderMode = abi_engine_set_local_render_mode
    var engineSetRemoteRenderMode = CAgoraishABI.agoraish_engine_set_remote_render_mode
    engineSetRemoteRenderMode = abi_engine_set_remote_render_mode
    var engineRegisterVideoFrameObserver = CAgoraishABI.agoraish_engine_register_video_frame_observer
    engineRegisterVideoFrameObserver = abi_engine_register_video_frame_observer
    var engineEnableDualStreamMode = CAgoraishABI.agoraish_engine_enable_dual_stream_mode
    engineEnableDualStreamMode = abi_engine_enable_dual_stream_mode
    var engineSetRemoteVideoStreamType = CAgoraishABI.agoraish_engine_set_remote_video_stream_type
    engineSetRemoteVideoStreamType = abi_engine_set_remote_video_stream_type
    var engineSetRemoteDefaultVideoStreamType = CAgoraishABI.agoraish_engine_set_remote_default_video_stream_type
    engineSetRemoteDefaultVideoStreamType = abi_engine_set_remote_default_video_stream_type
    var engineSetLocalPublishFallbackOption = CAgoraishABI.agoraish_engine_set_local_publish_fallback_option
    engineSetLocalPublishFallbackOption = abi_engine_set_local_publish_fallback_option
    var engineSetRemoteSubscribeFallbackOption = CAgoraishABI.agoraish_engine_set_remote_subscribe_fallback_option
    engineSetRemoteSubscribeFallbackOption = abi_engine_set_remote_subscribe_fallback_option
    var engineSetRemoteUserPriority = CAgoraishABI.agoraish_engine_set_remote_user_priority
    engineSetRemoteUserPriority = abi_engine_set_remote_user_priority
    var engineTakeSnapshot = CAgoraishABI.agoraish_engine_take_snapshot
    engineTakeSnapshot = abi_engine_take_snapshot
    var engineAddVideoWatermark = CAgoraishABI.agoraish_engine_add_video_watermark
    engineAddVideoWatermark = abi_engine_add_video_watermark
    var engineClearVideoWatermarks = CAgoraishABI.agoraish_engine_clear_video_watermarks
    engineClearVideoWatermarks = abi_engine_clear_video_watermarks
    var engineGetVideoDeviceCount = CAgoraishABI.agoraish_engine_get_video_device_count
    engineGetVideoDeviceCount = abi_engine_get_video_device_count
    var engineGetVideoDevice = CAgoraishABI.agoraish_engine_get_video_device
    engineGetVideoDevice = abi_engine_get_video_device
    var engineSetVideoDevice = CAgoraishABI.agoraish_engine_set_video_device
    engineSetVideoDevice = abi_engine_set_video_device
    var engineGetCurrentVideoDevice = CAgoraishABI.agoraish_engine_get_current_video_device
    engineGetCurrentVideoDevice = abi_engine_get_current_video_device
    var engineSetCameraCapturerConfiguration = CAgoraishABI.agoraish_engine_set_camera_capturer_configuration
    engineSetCameraCapturerConfiguration = abi_engine_set_camera_capturer_configuration
    var engineSwitchCamera = CAgoraishABI.agoraish_engine_switch_camera
    engineSwitchCamera = abi_engine_switch_camera
    _ = (engineEnableLocalVideo, engineMuteLocalVideoStream, engineMuteRemoteVideoStream,
         engineMuteAllRemoteVideoStreams, engineSetDefaultMuteAllRemoteVideoStreams)
    _ = (engineSetupLocalVideo, engineStartPreview, engineStopPreview, engineSetLocalRenderMode, engineSetRemoteRenderMode,
         engineRegisterVideoFrameObserver, engineEnableDualStreamMode, engineSetRemoteVideoStreamType,
         engineSetRemoteDefaultVideoStreamType, engineTakeSnapshot, engineAddVideoWatermark, engineClearVideoWatermarks)
    _ = (engineGetVideoDeviceCount, engineGetVideoDevice, engineSetVideoDevice, engineGetCurrentVideoDevice,
         engineSetCameraCapturerConfiguration, engineSwitchCamera)
    var engineStartEchoTest = CAgoraishABI.agoraish_engine_start_echo_test
    engineStartEchoTest = abi_engine_start_echo_test
    var engineStopEchoTest = CAgoraishABI.agoraish_engine_stop_echo_test
    engineStopEchoTest = abi_engine_stop_echo_test
    var engineStartEchoTestWithConfig = CAgoraishABI.agoraish_engine_start_echo_test_with_config
    engineStartEchoTestWithConfig = abi_engine_start_echo_test_with_config
    var engineStartLastmileProbeTest = CAgoraishABI.agoraish_engine_start_lastmile_probe_test
    engineStartLastmileProbeTest = abi_engine_start_lastmile_probe_test
    var engineStopLastmileProbeTest = CAgoraishABI.agoraish_engine_stop_lastmile_probe_test
    engineStopLastmileProbeTest = abi_engine_stop_lastmile_probe_test
    var engineEnableLastmileTest = CAgoraishABI.agoraish_engine_enable_lastmile_test
    engineEnableLastmileTest = abi_engine_enable_lastmile_test
    var engineDisableLastmileTest = CAgoraishABI.agoraish_engine_disable_lastmile_test
    engineDisableLastmileTest = abi_engine_disable_lastmile_test
    _ = (engineStartEchoTest, engineStopEchoTest, engineStartEchoTestWithConfig, engineStartLastmileProbeTest,
         engineStopLastmileProbeTest, engineEnableLastmileTest, engineDisableLastmileTest)
    var engineCreateDataStream = CAgoraishABI.agoraish_engine_create_data_stream
    engineCreateDataStream = abi_engine_create_data_stream
    var engineCreateDataStreamWithConfig = CAgoraishABI.agoraish_engine_create_data_stream_with_config
    engineCreateDataStreamWithConfig = abi_engine_create_data_stream_with_config
    var engineSendStreamMessage = CAgoraishABI.agoraish_engine_send_stream_message
    engineSendStreamMessage = abi_engine_send_stream_message
    var engineSendAudioMetadata = CAgoraishABI.agoraish_engine_send_audio_metadata
    engineSendAudioMetadata = abi_engine_send_audio_metadata
    var engineRegisterMediaMetadataObserver = CAgoraishABI.agoraish_engine_register_media_metadata_observer
    engineRegisterMediaMetadataObserver = abi_engine_register_media_metadata_observer
    var engineEnableEncryption = CAgoraishABI.agoraish_engine_enable_encryption
    engineEnableEncryption = abi_engine_enable_encryption
    var engineSetEncryptionSecret = CAgoraishABI.agoraish_engine_set_encryption_secret
    engineSetEncryptionSecret = abi_engine_set_encryption_secret
    var engineSetEncryptionMode = CAgoraishABI.agoraish_engine_set_encryption_mode
    engineSetEncryptionMode = abi_engine_set_encryption_mode
    var engineRegisterPacketObserver = CAgoraishABI.agoraish_engine_register_packet_observer
    engineRegisterPacketObserver = abi_engine_register_packet_observer
    _ = (engineCreateDataStream, engineCreateDataStreamWithConfig, engineSendStreamMessage, engineSendAudioMetadata, engineRegisterMediaMetadataObserver, engineEnableEncryption, engineSetEncryptionSecret, engineSetEncryptionMode, engineRegisterPacketObserver)
}
