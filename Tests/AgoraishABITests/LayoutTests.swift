import CAgoraishABI
import Foundation
import Testing

/// Swift sees the structs of include/agoraish.h with the sizes and offsets
/// that a C compiler gives them. The C side is Tests/c/layout_probe.c, whose
/// JSON output `make test` passes in AGORAISH_ABI_LAYOUT.
@Suite struct LayoutTests {
    /// Sizes and field offsets as Swift computes them, in the probe's format.
    /// One typed dictionary per struct keeps the literals small for the type checker.
    static func swiftLayout() -> [String: [String: Int]] {
        var layout: [String: [String: Int]] = [:]

        let eventHandler: [String: Int] = [
            "__size__": MemoryLayout<agoraish_event_handler>.size,
            "struct_size": MemoryLayout<agoraish_event_handler>.offset(of: \.struct_size)!,
            "user_data": MemoryLayout<agoraish_event_handler>.offset(of: \.user_data)!,
            "on_api_call_executed": MemoryLayout<agoraish_event_handler>.offset(of: \.on_api_call_executed)!,
            "on_join_channel_success": MemoryLayout<agoraish_event_handler>.offset(of: \.on_join_channel_success)!,
            "on_rejoin_channel_success": MemoryLayout<agoraish_event_handler>.offset(of: \.on_rejoin_channel_success)!,
            "on_leave_channel": MemoryLayout<agoraish_event_handler>.offset(of: \.on_leave_channel)!,
            "on_user_joined": MemoryLayout<agoraish_event_handler>.offset(of: \.on_user_joined)!,
            "on_user_offline": MemoryLayout<agoraish_event_handler>.offset(of: \.on_user_offline)!,
            "on_client_role_changed": MemoryLayout<agoraish_event_handler>.offset(of: \.on_client_role_changed)!,
            "on_connection_state_changed": MemoryLayout<agoraish_event_handler>.offset(of: \.on_connection_state_changed)!,
            "on_connection_lost": MemoryLayout<agoraish_event_handler>.offset(of: \.on_connection_lost)!,
            "on_token_privilege_will_expire": MemoryLayout<agoraish_event_handler>.offset(of: \.on_token_privilege_will_expire)!,
            "on_request_token": MemoryLayout<agoraish_event_handler>.offset(of: \.on_request_token)!,
            "on_local_user_registered": MemoryLayout<agoraish_event_handler>.offset(of: \.on_local_user_registered)!,
            "on_user_info_updated": MemoryLayout<agoraish_event_handler>.offset(of: \.on_user_info_updated)!,
            "on_error": MemoryLayout<agoraish_event_handler>.offset(of: \.on_error)!,
            "on_first_local_audio_frame_published": MemoryLayout<agoraish_event_handler>.offset(of: \.on_first_local_audio_frame_published)!,
            "on_first_remote_audio_frame": MemoryLayout<agoraish_event_handler>.offset(of: \.on_first_remote_audio_frame)!,
            "on_first_remote_audio_decoded": MemoryLayout<agoraish_event_handler>.offset(of: \.on_first_remote_audio_decoded)!,
            "on_user_mute_audio": MemoryLayout<agoraish_event_handler>.offset(of: \.on_user_mute_audio)!,
            "on_local_audio_state_changed": MemoryLayout<agoraish_event_handler>.offset(of: \.on_local_audio_state_changed)!,
            "on_remote_audio_state_changed": MemoryLayout<agoraish_event_handler>.offset(of: \.on_remote_audio_state_changed)!,
            "on_audio_volume_indication": MemoryLayout<agoraish_event_handler>.offset(of: \.on_audio_volume_indication)!,
            "on_active_speaker": MemoryLayout<agoraish_event_handler>.offset(of: \.on_active_speaker)!,
            "on_rtc_stats": MemoryLayout<agoraish_event_handler>.offset(of: \.on_rtc_stats)!,
            "on_local_audio_stats": MemoryLayout<agoraish_event_handler>.offset(of: \.on_local_audio_stats)!,
            "on_remote_audio_stats": MemoryLayout<agoraish_event_handler>.offset(of: \.on_remote_audio_stats)!,
            "on_first_local_video_frame_published": MemoryLayout<agoraish_event_handler>.offset(of: \.on_first_local_video_frame_published)!,
            "on_first_remote_video_decoded": MemoryLayout<agoraish_event_handler>.offset(of: \.on_first_remote_video_decoded)!,
            "on_video_size_changed": MemoryLayout<agoraish_event_handler>.offset(of: \.on_video_size_changed)!,
            "on_user_mute_video": MemoryLayout<agoraish_event_handler>.offset(of: \.on_user_mute_video)!,
            "on_first_local_video_frame": MemoryLayout<agoraish_event_handler>.offset(of: \.on_first_local_video_frame)!,
            "on_first_remote_video_frame": MemoryLayout<agoraish_event_handler>.offset(of: \.on_first_remote_video_frame)!,
            "on_user_enable_video": MemoryLayout<agoraish_event_handler>.offset(of: \.on_user_enable_video)!,
            "on_user_enable_local_video": MemoryLayout<agoraish_event_handler>.offset(of: \.on_user_enable_local_video)!,
            "on_local_video_state_changed": MemoryLayout<agoraish_event_handler>.offset(of: \.on_local_video_state_changed)!,
            "on_remote_video_state_changed": MemoryLayout<agoraish_event_handler>.offset(of: \.on_remote_video_state_changed)!,
            "on_local_video_stats": MemoryLayout<agoraish_event_handler>.offset(of: \.on_local_video_stats)!,
            "on_remote_video_stats": MemoryLayout<agoraish_event_handler>.offset(of: \.on_remote_video_stats)!,
            "on_snapshot_taken": MemoryLayout<agoraish_event_handler>.offset(of: \.on_snapshot_taken)!,
            "on_network_quality": MemoryLayout<agoraish_event_handler>.offset(of: \.on_network_quality)!,
            "on_local_publish_fallback_to_audio_only": MemoryLayout<agoraish_event_handler>.offset(of: \.on_local_publish_fallback_to_audio_only)!,
            "on_remote_subscribe_fallback_to_audio_only": MemoryLayout<agoraish_event_handler>.offset(of: \.on_remote_subscribe_fallback_to_audio_only)!,
            "on_lastmile_quality": MemoryLayout<agoraish_event_handler>.offset(of: \.on_lastmile_quality)!,
            "on_lastmile_probe_result": MemoryLayout<agoraish_event_handler>.offset(of: \.on_lastmile_probe_result)!,
            "on_stream_message": MemoryLayout<agoraish_event_handler>.offset(of: \.on_stream_message)!,
            "on_stream_message_error": MemoryLayout<agoraish_event_handler>.offset(of: \.on_stream_message_error)!,
            "on_encryption_error": MemoryLayout<agoraish_event_handler>.offset(of: \.on_encryption_error)!,
            "on_audio_metadata_received": MemoryLayout<agoraish_event_handler>.offset(of: \.on_audio_metadata_received)!,
        ]
        layout["agoraish_event_handler"] = eventHandler

        let engineConfig: [String: Int] = [
            "__size__": MemoryLayout<agoraish_engine_config>.size,
            "struct_size": MemoryLayout<agoraish_engine_config>.offset(of: \.struct_size)!,
            "app_id": MemoryLayout<agoraish_engine_config>.offset(of: \.app_id)!,
            "event_handler": MemoryLayout<agoraish_engine_config>.offset(of: \.event_handler)!,
            "server_url": MemoryLayout<agoraish_engine_config>.offset(of: \.server_url)!,
            "log_file": MemoryLayout<agoraish_engine_config>.offset(of: \.log_file)!,
            "log_file_size_kb": MemoryLayout<agoraish_engine_config>.offset(of: \.log_file_size_kb)!,
            "log_level": MemoryLayout<agoraish_engine_config>.offset(of: \.log_level)!,
            "area_code": MemoryLayout<agoraish_engine_config>.offset(of: \.area_code)!,
        ]
        layout["agoraish_engine_config"] = engineConfig

        let userInfo: [String: Int] = [
            "__size__": MemoryLayout<agoraish_user_info>.size,
            "uid": MemoryLayout<agoraish_user_info>.offset(of: \.uid)!,
            "user_account": MemoryLayout<agoraish_user_info>.offset(of: \.user_account)!,
        ]
        layout["agoraish_user_info"] = userInfo

        let rtcStats: [String: Int] = [
            "__size__": MemoryLayout<agoraish_rtc_stats>.size,
            "struct_size": MemoryLayout<agoraish_rtc_stats>.offset(of: \.struct_size)!,
            "duration": MemoryLayout<agoraish_rtc_stats>.offset(of: \.duration)!,
            "tx_bytes": MemoryLayout<agoraish_rtc_stats>.offset(of: \.tx_bytes)!,
            "rx_bytes": MemoryLayout<agoraish_rtc_stats>.offset(of: \.rx_bytes)!,
            "tx_packets": MemoryLayout<agoraish_rtc_stats>.offset(of: \.tx_packets)!,
            "rx_packets": MemoryLayout<agoraish_rtc_stats>.offset(of: \.rx_packets)!,
            "user_count": MemoryLayout<agoraish_rtc_stats>.offset(of: \.user_count)!,
            "tx_kbitrate": MemoryLayout<agoraish_rtc_stats>.offset(of: \.tx_kbitrate)!,
            "tx_audio_bytes": MemoryLayout<agoraish_rtc_stats>.offset(of: \.tx_audio_bytes)!,
            "rx_audio_bytes": MemoryLayout<agoraish_rtc_stats>.offset(of: \.rx_audio_bytes)!,
            "rx_kbitrate": MemoryLayout<agoraish_rtc_stats>.offset(of: \.rx_kbitrate)!,
            "tx_audio_kbitrate": MemoryLayout<agoraish_rtc_stats>.offset(of: \.tx_audio_kbitrate)!,
            "rx_audio_kbitrate": MemoryLayout<agoraish_rtc_stats>.offset(of: \.rx_audio_kbitrate)!,
            "memory_app_usage_kb": MemoryLayout<agoraish_rtc_stats>.offset(of: \.memory_app_usage_kb)!,
            "cpu_app_usage": MemoryLayout<agoraish_rtc_stats>.offset(of: \.cpu_app_usage)!,
            "tx_video_kbitrate": MemoryLayout<agoraish_rtc_stats>.offset(of: \.tx_video_kbitrate)!,
            "rx_video_kbitrate": MemoryLayout<agoraish_rtc_stats>.offset(of: \.rx_video_kbitrate)!,
            "gateway_rtt": MemoryLayout<agoraish_rtc_stats>.offset(of: \.gateway_rtt)!,
            "lastmile_delay": MemoryLayout<agoraish_rtc_stats>.offset(of: \.lastmile_delay)!,
            "tx_packet_loss_rate": MemoryLayout<agoraish_rtc_stats>.offset(of: \.tx_packet_loss_rate)!,
            "rx_packet_loss_rate": MemoryLayout<agoraish_rtc_stats>.offset(of: \.rx_packet_loss_rate)!,
        ]
        layout["agoraish_rtc_stats"] = rtcStats

        let serverConfig: [String: Int] = [
            "__size__": MemoryLayout<agoraish_server_config>.size,
            "struct_size": MemoryLayout<agoraish_server_config>.offset(of: \.struct_size)!,
            "host": MemoryLayout<agoraish_server_config>.offset(of: \.host)!,
            "signaling_port": MemoryLayout<agoraish_server_config>.offset(of: \.signaling_port)!,
            "http_port": MemoryLayout<agoraish_server_config>.offset(of: \.http_port)!,
            "config_json": MemoryLayout<agoraish_server_config>.offset(of: \.config_json)!,
        ]
        layout["agoraish_server_config"] = serverConfig

        let audioVolumeInfo: [String: Int] = [
            "__size__": MemoryLayout<agoraish_audio_volume_info>.size,
            "uid": MemoryLayout<agoraish_audio_volume_info>.offset(of: \.uid)!,
            "volume": MemoryLayout<agoraish_audio_volume_info>.offset(of: \.volume)!,
            "vad": MemoryLayout<agoraish_audio_volume_info>.offset(of: \.vad)!,
        ]
        layout["agoraish_audio_volume_info"] = audioVolumeInfo

        let localAudioStats: [String: Int] = [
            "__size__": MemoryLayout<agoraish_local_audio_stats>.size,
            "struct_size": MemoryLayout<agoraish_local_audio_stats>.offset(of: \.struct_size)!,
            "num_channels": MemoryLayout<agoraish_local_audio_stats>.offset(of: \.num_channels)!,
            "sent_sample_rate": MemoryLayout<agoraish_local_audio_stats>.offset(of: \.sent_sample_rate)!,
            "sent_bitrate": MemoryLayout<agoraish_local_audio_stats>.offset(of: \.sent_bitrate)!,
            "tx_packet_loss_rate": MemoryLayout<agoraish_local_audio_stats>.offset(of: \.tx_packet_loss_rate)!,
        ]
        layout["agoraish_local_audio_stats"] = localAudioStats

        let remoteAudioStats: [String: Int] = [
            "__size__": MemoryLayout<agoraish_remote_audio_stats>.size,
            "struct_size": MemoryLayout<agoraish_remote_audio_stats>.offset(of: \.struct_size)!,
            "uid": MemoryLayout<agoraish_remote_audio_stats>.offset(of: \.uid)!,
            "quality": MemoryLayout<agoraish_remote_audio_stats>.offset(of: \.quality)!,
            "network_transport_delay": MemoryLayout<agoraish_remote_audio_stats>.offset(of: \.network_transport_delay)!,
            "jitter_buffer_delay": MemoryLayout<agoraish_remote_audio_stats>.offset(of: \.jitter_buffer_delay)!,
            "audio_loss_rate": MemoryLayout<agoraish_remote_audio_stats>.offset(of: \.audio_loss_rate)!,
            "num_channels": MemoryLayout<agoraish_remote_audio_stats>.offset(of: \.num_channels)!,
            "received_sample_rate": MemoryLayout<agoraish_remote_audio_stats>.offset(of: \.received_sample_rate)!,
            "received_bitrate": MemoryLayout<agoraish_remote_audio_stats>.offset(of: \.received_bitrate)!,
            "total_frozen_time": MemoryLayout<agoraish_remote_audio_stats>.offset(of: \.total_frozen_time)!,
            "frozen_rate": MemoryLayout<agoraish_remote_audio_stats>.offset(of: \.frozen_rate)!,
            "total_active_time": MemoryLayout<agoraish_remote_audio_stats>.offset(of: \.total_active_time)!,
            "fec_recovered_frames": MemoryLayout<agoraish_remote_audio_stats>.offset(of: \.fec_recovered_frames)!,
            "concealed_frames": MemoryLayout<agoraish_remote_audio_stats>.offset(of: \.concealed_frames)!,
            "end_to_end_delay": MemoryLayout<agoraish_remote_audio_stats>.offset(of: \.end_to_end_delay)!,
        ]
        layout["agoraish_remote_audio_stats"] = remoteAudioStats

        let audioFrame: [String: Int] = [
            "__size__": MemoryLayout<agoraish_audio_frame>.size,
            "type": MemoryLayout<agoraish_audio_frame>.offset(of: \.type)!,
            "samples_per_channel": MemoryLayout<agoraish_audio_frame>.offset(of: \.samples_per_channel)!,
            "bytes_per_sample": MemoryLayout<agoraish_audio_frame>.offset(of: \.bytes_per_sample)!,
            "channels": MemoryLayout<agoraish_audio_frame>.offset(of: \.channels)!,
            "samples_per_sec": MemoryLayout<agoraish_audio_frame>.offset(of: \.samples_per_sec)!,
            "buffer": MemoryLayout<agoraish_audio_frame>.offset(of: \.buffer)!,
            "render_time_ms": MemoryLayout<agoraish_audio_frame>.offset(of: \.render_time_ms)!,
            "avsync_type": MemoryLayout<agoraish_audio_frame>.offset(of: \.avsync_type)!,
        ]
        layout["agoraish_audio_frame"] = audioFrame

        let audioFrameObserver: [String: Int] = [
            "__size__": MemoryLayout<agoraish_audio_frame_observer>.size,
            "struct_size": MemoryLayout<agoraish_audio_frame_observer>.offset(of: \.struct_size)!,
            "user_data": MemoryLayout<agoraish_audio_frame_observer>.offset(of: \.user_data)!,
            "observed_position": MemoryLayout<agoraish_audio_frame_observer>.offset(of: \.observed_position)!,
            "on_record_audio_frame": MemoryLayout<agoraish_audio_frame_observer>.offset(of: \.on_record_audio_frame)!,
            "on_playback_audio_frame": MemoryLayout<agoraish_audio_frame_observer>.offset(of: \.on_playback_audio_frame)!,
            "on_mixed_audio_frame": MemoryLayout<agoraish_audio_frame_observer>.offset(of: \.on_mixed_audio_frame)!,
            "on_playback_audio_frame_before_mixing": MemoryLayout<agoraish_audio_frame_observer>.offset(of: \.on_playback_audio_frame_before_mixing)!,
        ]
        layout["agoraish_audio_frame_observer"] = audioFrameObserver

        let audioRecordingConfig: [String: Int] = [
            "__size__": MemoryLayout<agoraish_audio_recording_config>.size,
            "struct_size": MemoryLayout<agoraish_audio_recording_config>.offset(of: \.struct_size)!,
            "file_path": MemoryLayout<agoraish_audio_recording_config>.offset(of: \.file_path)!,
            "sample_rate": MemoryLayout<agoraish_audio_recording_config>.offset(of: \.sample_rate)!,
            "position": MemoryLayout<agoraish_audio_recording_config>.offset(of: \.position)!,
            "quality": MemoryLayout<agoraish_audio_recording_config>.offset(of: \.quality)!,
        ]
        layout["agoraish_audio_recording_config"] = audioRecordingConfig

        let audioDeviceInfo: [String: Int] = [
            "__size__": MemoryLayout<agoraish_audio_device_info>.size,
            "id": MemoryLayout<agoraish_audio_device_info>.offset(of: \.id)!,
            "name": MemoryLayout<agoraish_audio_device_info>.offset(of: \.name)!,
        ]
        layout["agoraish_audio_device_info"] = audioDeviceInfo

        let videoEncoderConfiguration: [String: Int] = [
            "__size__": MemoryLayout<agoraish_video_encoder_configuration>.size,
            "struct_size": MemoryLayout<agoraish_video_encoder_configuration>.offset(of: \.struct_size)!,
            "width": MemoryLayout<agoraish_video_encoder_configuration>.offset(of: \.width)!,
            "height": MemoryLayout<agoraish_video_encoder_configuration>.offset(of: \.height)!,
            "frame_rate": MemoryLayout<agoraish_video_encoder_configuration>.offset(of: \.frame_rate)!,
            "bitrate": MemoryLayout<agoraish_video_encoder_configuration>.offset(of: \.bitrate)!,
            "min_bitrate": MemoryLayout<agoraish_video_encoder_configuration>.offset(of: \.min_bitrate)!,
            "codec_type": MemoryLayout<agoraish_video_encoder_configuration>.offset(of: \.codec_type)!,
            "orientation_mode": MemoryLayout<agoraish_video_encoder_configuration>.offset(of: \.orientation_mode)!,
            "degradation_preference": MemoryLayout<agoraish_video_encoder_configuration>.offset(of: \.degradation_preference)!,
            "mirror_mode": MemoryLayout<agoraish_video_encoder_configuration>.offset(of: \.mirror_mode)!,
        ]
        layout["agoraish_video_encoder_configuration"] = videoEncoderConfiguration

        let externalVideoFrame: [String: Int] = [
            "__size__": MemoryLayout<agoraish_external_video_frame>.size,
            "struct_size": MemoryLayout<agoraish_external_video_frame>.offset(of: \.struct_size)!,
            "format": MemoryLayout<agoraish_external_video_frame>.offset(of: \.format)!,
            "width": MemoryLayout<agoraish_external_video_frame>.offset(of: \.width)!,
            "height": MemoryLayout<agoraish_external_video_frame>.offset(of: \.height)!,
            "y_buffer": MemoryLayout<agoraish_external_video_frame>.offset(of: \.y_buffer)!,
            "u_buffer": MemoryLayout<agoraish_external_video_frame>.offset(of: \.u_buffer)!,
            "v_buffer": MemoryLayout<agoraish_external_video_frame>.offset(of: \.v_buffer)!,
            "y_stride": MemoryLayout<agoraish_external_video_frame>.offset(of: \.y_stride)!,
            "u_stride": MemoryLayout<agoraish_external_video_frame>.offset(of: \.u_stride)!,
            "v_stride": MemoryLayout<agoraish_external_video_frame>.offset(of: \.v_stride)!,
            "timestamp": MemoryLayout<agoraish_external_video_frame>.offset(of: \.timestamp)!,
            "rotation": MemoryLayout<agoraish_external_video_frame>.offset(of: \.rotation)!,
        ]
        layout["agoraish_external_video_frame"] = externalVideoFrame

        let videoFrame: [String: Int] = [
            "__size__": MemoryLayout<agoraish_video_frame>.size,
            "type": MemoryLayout<agoraish_video_frame>.offset(of: \.type)!,
            "width": MemoryLayout<agoraish_video_frame>.offset(of: \.width)!,
            "height": MemoryLayout<agoraish_video_frame>.offset(of: \.height)!,
            "y_stride": MemoryLayout<agoraish_video_frame>.offset(of: \.y_stride)!,
            "u_stride": MemoryLayout<agoraish_video_frame>.offset(of: \.u_stride)!,
            "v_stride": MemoryLayout<agoraish_video_frame>.offset(of: \.v_stride)!,
            "y_buffer": MemoryLayout<agoraish_video_frame>.offset(of: \.y_buffer)!,
            "u_buffer": MemoryLayout<agoraish_video_frame>.offset(of: \.u_buffer)!,
            "v_buffer": MemoryLayout<agoraish_video_frame>.offset(of: \.v_buffer)!,
            "rotation": MemoryLayout<agoraish_video_frame>.offset(of: \.rotation)!,
            "render_time_ms": MemoryLayout<agoraish_video_frame>.offset(of: \.render_time_ms)!,
        ]
        layout["agoraish_video_frame"] = videoFrame

        let videoCanvas: [String: Int] = [
            "__size__": MemoryLayout<agoraish_video_canvas>.size,
            "struct_size": MemoryLayout<agoraish_video_canvas>.offset(of: \.struct_size)!,
            "uid": MemoryLayout<agoraish_video_canvas>.offset(of: \.uid)!,
            "on_frame": MemoryLayout<agoraish_video_canvas>.offset(of: \.on_frame)!,
            "user_data": MemoryLayout<agoraish_video_canvas>.offset(of: \.user_data)!,
            "render_mode": MemoryLayout<agoraish_video_canvas>.offset(of: \.render_mode)!,
            "mirror_mode": MemoryLayout<agoraish_video_canvas>.offset(of: \.mirror_mode)!,
            "view_width": MemoryLayout<agoraish_video_canvas>.offset(of: \.view_width)!,
            "view_height": MemoryLayout<agoraish_video_canvas>.offset(of: \.view_height)!,
        ]
        layout["agoraish_video_canvas"] = videoCanvas

        let localVideoStats: [String: Int] = [
            "__size__": MemoryLayout<agoraish_local_video_stats>.size,
            "struct_size": MemoryLayout<agoraish_local_video_stats>.offset(of: \.struct_size)!,
            "sent_bitrate": MemoryLayout<agoraish_local_video_stats>.offset(of: \.sent_bitrate)!,
            "sent_frame_rate": MemoryLayout<agoraish_local_video_stats>.offset(of: \.sent_frame_rate)!,
            "encoder_output_frame_rate": MemoryLayout<agoraish_local_video_stats>.offset(of: \.encoder_output_frame_rate)!,
            "renderer_output_frame_rate": MemoryLayout<agoraish_local_video_stats>.offset(of: \.renderer_output_frame_rate)!,
            "target_bitrate": MemoryLayout<agoraish_local_video_stats>.offset(of: \.target_bitrate)!,
            "target_frame_rate": MemoryLayout<agoraish_local_video_stats>.offset(of: \.target_frame_rate)!,
            "encoded_bitrate": MemoryLayout<agoraish_local_video_stats>.offset(of: \.encoded_bitrate)!,
            "encoded_frame_width": MemoryLayout<agoraish_local_video_stats>.offset(of: \.encoded_frame_width)!,
            "encoded_frame_height": MemoryLayout<agoraish_local_video_stats>.offset(of: \.encoded_frame_height)!,
            "encoded_frame_count": MemoryLayout<agoraish_local_video_stats>.offset(of: \.encoded_frame_count)!,
            "codec_type": MemoryLayout<agoraish_local_video_stats>.offset(of: \.codec_type)!,
            "capture_frame_rate": MemoryLayout<agoraish_local_video_stats>.offset(of: \.capture_frame_rate)!,
        ]
        layout["agoraish_local_video_stats"] = localVideoStats

        let remoteVideoStats: [String: Int] = [
            "__size__": MemoryLayout<agoraish_remote_video_stats>.size,
            "struct_size": MemoryLayout<agoraish_remote_video_stats>.offset(of: \.struct_size)!,
            "uid": MemoryLayout<agoraish_remote_video_stats>.offset(of: \.uid)!,
            "width": MemoryLayout<agoraish_remote_video_stats>.offset(of: \.width)!,
            "height": MemoryLayout<agoraish_remote_video_stats>.offset(of: \.height)!,
            "received_bitrate": MemoryLayout<agoraish_remote_video_stats>.offset(of: \.received_bitrate)!,
            "decoder_output_frame_rate": MemoryLayout<agoraish_remote_video_stats>.offset(of: \.decoder_output_frame_rate)!,
            "renderer_output_frame_rate": MemoryLayout<agoraish_remote_video_stats>.offset(of: \.renderer_output_frame_rate)!,
            "packet_loss_rate": MemoryLayout<agoraish_remote_video_stats>.offset(of: \.packet_loss_rate)!,
            "rx_stream_type": MemoryLayout<agoraish_remote_video_stats>.offset(of: \.rx_stream_type)!,
            "total_frozen_time": MemoryLayout<agoraish_remote_video_stats>.offset(of: \.total_frozen_time)!,
            "frozen_rate": MemoryLayout<agoraish_remote_video_stats>.offset(of: \.frozen_rate)!,
            "total_active_time": MemoryLayout<agoraish_remote_video_stats>.offset(of: \.total_active_time)!,
            "publish_duration": MemoryLayout<agoraish_remote_video_stats>.offset(of: \.publish_duration)!,
        ]
        layout["agoraish_remote_video_stats"] = remoteVideoStats

        let videoFrameObserver: [String: Int] = [
            "__size__": MemoryLayout<agoraish_video_frame_observer>.size,
            "struct_size": MemoryLayout<agoraish_video_frame_observer>.offset(of: \.struct_size)!,
            "observed_position": MemoryLayout<agoraish_video_frame_observer>.offset(of: \.observed_position)!,
            "on_capture_video_frame": MemoryLayout<agoraish_video_frame_observer>.offset(of: \.on_capture_video_frame)!,
            "on_pre_encode_video_frame": MemoryLayout<agoraish_video_frame_observer>.offset(of: \.on_pre_encode_video_frame)!,
            "on_render_video_frame": MemoryLayout<agoraish_video_frame_observer>.offset(of: \.on_render_video_frame)!,
            "user_data": MemoryLayout<agoraish_video_frame_observer>.offset(of: \.user_data)!,
        ]
        layout["agoraish_video_frame_observer"] = videoFrameObserver

        let watermarkOptions: [String: Int] = [
            "__size__": MemoryLayout<agoraish_watermark_options>.size,
            "struct_size": MemoryLayout<agoraish_watermark_options>.offset(of: \.struct_size)!,
            "visible_in_preview": MemoryLayout<agoraish_watermark_options>.offset(of: \.visible_in_preview)!,
            "landscape_x": MemoryLayout<agoraish_watermark_options>.offset(of: \.landscape_x)!,
            "landscape_y": MemoryLayout<agoraish_watermark_options>.offset(of: \.landscape_y)!,
            "landscape_width": MemoryLayout<agoraish_watermark_options>.offset(of: \.landscape_width)!,
            "landscape_height": MemoryLayout<agoraish_watermark_options>.offset(of: \.landscape_height)!,
            "portrait_x": MemoryLayout<agoraish_watermark_options>.offset(of: \.portrait_x)!,
            "portrait_y": MemoryLayout<agoraish_watermark_options>.offset(of: \.portrait_y)!,
            "portrait_width": MemoryLayout<agoraish_watermark_options>.offset(of: \.portrait_width)!,
            "portrait_height": MemoryLayout<agoraish_watermark_options>.offset(of: \.portrait_height)!,
        ]
        layout["agoraish_watermark_options"] = watermarkOptions

        let videoFormat: [String: Int] = [
            "__size__": MemoryLayout<agoraish_video_format>.size,
            "width": MemoryLayout<agoraish_video_format>.offset(of: \.width)!,
            "height": MemoryLayout<agoraish_video_format>.offset(of: \.height)!,
            "fps": MemoryLayout<agoraish_video_format>.offset(of: \.fps)!,
            "fourcc": MemoryLayout<agoraish_video_format>.offset(of: \.fourcc)!,
        ]
        layout["agoraish_video_format"] = videoFormat

        let videoDeviceInfo: [String: Int] = [
            "__size__": MemoryLayout<agoraish_video_device_info>.size,
            "id": MemoryLayout<agoraish_video_device_info>.offset(of: \.id)!,
            "name": MemoryLayout<agoraish_video_device_info>.offset(of: \.name)!,
            "format_count": MemoryLayout<agoraish_video_device_info>.offset(of: \.format_count)!,
            "formats": MemoryLayout<agoraish_video_device_info>.offset(of: \.formats)!,
        ]
        layout["agoraish_video_device_info"] = videoDeviceInfo

        let cameraCapturerConfiguration: [String: Int] = [
            "__size__": MemoryLayout<agoraish_camera_capturer_configuration>.size,
            "struct_size": MemoryLayout<agoraish_camera_capturer_configuration>.offset(of: \.struct_size)!,
            "preference": MemoryLayout<agoraish_camera_capturer_configuration>.offset(of: \.preference)!,
            "capture_width": MemoryLayout<agoraish_camera_capturer_configuration>.offset(of: \.capture_width)!,
            "capture_height": MemoryLayout<agoraish_camera_capturer_configuration>.offset(of: \.capture_height)!,
        ]
        layout["agoraish_camera_capturer_configuration"] = cameraCapturerConfiguration

        let lastmileProbeConfig: [String: Int] = [
            "__size__": MemoryLayout<agoraish_lastmile_probe_config>.size,
            "struct_size": MemoryLayout<agoraish_lastmile_probe_config>.offset(of: \.struct_size)!,
            "probe_uplink": MemoryLayout<agoraish_lastmile_probe_config>.offset(of: \.probe_uplink)!,
            "probe_downlink": MemoryLayout<agoraish_lastmile_probe_config>.offset(of: \.probe_downlink)!,
            "expected_uplink_bitrate": MemoryLayout<agoraish_lastmile_probe_config>.offset(of: \.expected_uplink_bitrate)!,
            "expected_downlink_bitrate": MemoryLayout<agoraish_lastmile_probe_config>.offset(of: \.expected_downlink_bitrate)!,
            "token": MemoryLayout<agoraish_lastmile_probe_config>.offset(of: \.token)!,
            "channel_id": MemoryLayout<agoraish_lastmile_probe_config>.offset(of: \.channel_id)!,
        ]
        layout["agoraish_lastmile_probe_config"] = lastmileProbeConfig

        let echoTestConfiguration: [String: Int] = [
            "__size__": MemoryLayout<agoraish_echo_test_configuration>.size,
            "struct_size": MemoryLayout<agoraish_echo_test_configuration>.offset(of: \.struct_size)!,
            "enable_audio": MemoryLayout<agoraish_echo_test_configuration>.offset(of: \.enable_audio)!,
            "enable_video": MemoryLayout<agoraish_echo_test_configuration>.offset(of: \.enable_video)!,
            "token": MemoryLayout<agoraish_echo_test_configuration>.offset(of: \.token)!,
            "channel_id": MemoryLayout<agoraish_echo_test_configuration>.offset(of: \.channel_id)!,
            "interval_in_seconds": MemoryLayout<agoraish_echo_test_configuration>.offset(of: \.interval_in_seconds)!,
        ]
        layout["agoraish_echo_test_configuration"] = echoTestConfiguration

        let lastmileProbeOneWayResult: [String: Int] = [
            "__size__": MemoryLayout<agoraish_lastmile_probe_one_way_result>.size,
            "packet_loss_rate": MemoryLayout<agoraish_lastmile_probe_one_way_result>.offset(of: \.packet_loss_rate)!,
            "jitter": MemoryLayout<agoraish_lastmile_probe_one_way_result>.offset(of: \.jitter)!,
            "available_bandwidth": MemoryLayout<agoraish_lastmile_probe_one_way_result>.offset(of: \.available_bandwidth)!,
        ]
        layout["agoraish_lastmile_probe_one_way_result"] = lastmileProbeOneWayResult

        let lastmileProbeResult: [String: Int] = [
            "__size__": MemoryLayout<agoraish_lastmile_probe_result>.size,
            "struct_size": MemoryLayout<agoraish_lastmile_probe_result>.offset(of: \.struct_size)!,
            "state": MemoryLayout<agoraish_lastmile_probe_result>.offset(of: \.state)!,
            "uplink_report": MemoryLayout<agoraish_lastmile_probe_result>.offset(of: \.uplink_report)!,
            "downlink_report": MemoryLayout<agoraish_lastmile_probe_result>.offset(of: \.downlink_report)!,
            "rtt": MemoryLayout<agoraish_lastmile_probe_result>.offset(of: \.rtt)!,
        ]
        layout["agoraish_lastmile_probe_result"] = lastmileProbeResult

        let dataStreamConfig: [String: Int] = [
            "__size__": MemoryLayout<agoraish_data_stream_config>.size,
            "struct_size": MemoryLayout<agoraish_data_stream_config>.offset(of: \.struct_size)!,
            "sync_with_audio": MemoryLayout<agoraish_data_stream_config>.offset(of: \.sync_with_audio)!,
            "ordered": MemoryLayout<agoraish_data_stream_config>.offset(of: \.ordered)!,
        ]
        layout["agoraish_data_stream_config"] = dataStreamConfig

        let metadata: [String: Int] = [
            "__size__": MemoryLayout<agoraish_metadata>.size,
            "uid": MemoryLayout<agoraish_metadata>.offset(of: \.uid)!,
            "size": MemoryLayout<agoraish_metadata>.offset(of: \.size)!,
            "buffer": MemoryLayout<agoraish_metadata>.offset(of: \.buffer)!,
            "timestamp_ms": MemoryLayout<agoraish_metadata>.offset(of: \.timestamp_ms)!,
        ]
        layout["agoraish_metadata"] = metadata

        let metadataObserver: [String: Int] = [
            "__size__": MemoryLayout<agoraish_metadata_observer>.size,
            "struct_size": MemoryLayout<agoraish_metadata_observer>.offset(of: \.struct_size)!,
            "user_data": MemoryLayout<agoraish_metadata_observer>.offset(of: \.user_data)!,
            "get_max_metadata_size": MemoryLayout<agoraish_metadata_observer>.offset(of: \.get_max_metadata_size)!,
            "on_ready_to_send_metadata": MemoryLayout<agoraish_metadata_observer>.offset(of: \.on_ready_to_send_metadata)!,
            "on_metadata_received": MemoryLayout<agoraish_metadata_observer>.offset(of: \.on_metadata_received)!,
        ]
        layout["agoraish_metadata_observer"] = metadataObserver

        let encryptionConfig: [String: Int] = [
            "__size__": MemoryLayout<agoraish_encryption_config>.size,
            "struct_size": MemoryLayout<agoraish_encryption_config>.offset(of: \.struct_size)!,
            "encryption_mode": MemoryLayout<agoraish_encryption_config>.offset(of: \.encryption_mode)!,
            "encryption_key": MemoryLayout<agoraish_encryption_config>.offset(of: \.encryption_key)!,
            "encryption_kdf_salt": MemoryLayout<agoraish_encryption_config>.offset(of: \.encryption_kdf_salt)!,
        ]
        layout["agoraish_encryption_config"] = encryptionConfig

        let packet: [String: Int] = [
            "__size__": MemoryLayout<agoraish_packet>.size,
            "buffer": MemoryLayout<agoraish_packet>.offset(of: \.buffer)!,
            "size": MemoryLayout<agoraish_packet>.offset(of: \.size)!,
        ]
        layout["agoraish_packet"] = packet

        let packetObserver: [String: Int] = [
            "__size__": MemoryLayout<agoraish_packet_observer>.size,
            "struct_size": MemoryLayout<agoraish_packet_observer>.offset(of: \.struct_size)!,
            "user_data": MemoryLayout<agoraish_packet_observer>.offset(of: \.user_data)!,
            "on_send_audio_packet": MemoryLayout<agoraish_packet_observer>.offset(of: \.on_send_audio_packet)!,
            "on_send_video_packet": MemoryLayout<agoraish_packet_observer>.offset(of: \.on_send_video_packet)!,
            "on_receive_audio_packet": MemoryLayout<agoraish_packet_observer>.offset(of: \.on_receive_audio_packet)!,
            "on_receive_video_packet": MemoryLayout<agoraish_packet_observer>.offset(of: \.on_receive_video_packet)!,
        ]
        layout["agoraish_packet_observer"] = packetObserver
        return layout
    }

    @Test func structLayoutsMatchTheCProbe() throws {
        let path = try #require(ProcessInfo.processInfo.environment["AGORAISH_ABI_LAYOUT"],
                                "run through `make test`, which builds the C probe and sets AGORAISH_ABI_LAYOUT")
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let probe = try JSONDecoder().decode([String: [String: Int]].self, from: data)
        let swift = Self.swiftLayout()
        // Every struct the probe knows is checked here, field by field.
        #expect(Set(probe.keys) == Set(swift.keys))
        for (name, fields) in probe {
            #expect(swift[name] == fields, "\(name) differs between C and Swift")
        }
    }
}
