/*
 * Prints the size and field offsets of every struct in include/agoraish.h as
 * JSON: {"struct": {"__size__": n, "field": offset, ...}, ...}.
 * The Swift test (Tests/AgoraishABITests) and the Python test
 * (Tests/python/test_abi.py) compare their own view of the structs with it.
 * A struct added to the header is added here, in LayoutTests.swift and in
 * bindings/python/agoraish/_ffi.py; test_abi.py fails until all three know it.
 */
#include <stdio.h>
#include <stddef.h>
#include "agoraish.h"

/* The 0.1 event handler ends where the 0.2 callbacks begin: a host built
 * against 0.1 passes exactly this struct_size. */
_Static_assert(AGORAISH_EVENT_HANDLER_SIZE_0_1 == offsetof(agoraish_event_handler, on_join_channel_success),
               "AGORAISH_EVENT_HANDLER_SIZE_0_1 must be the offset of the first 0.2 callback");

/* The 0.7 probe config was five 32-bit fields (no padding): a host built
 * against 0.7 passes 20, which the 0.9 pointers made no multiple of 8. */
_Static_assert(AGORAISH_LASTMILE_PROBE_CONFIG_SIZE_0_7 == 5 * 4,
               "AGORAISH_LASTMILE_PROBE_CONFIG_SIZE_0_7 must be the 0.7 sizeof(agoraish_lastmile_probe_config)");

static int first_struct = 1;
static int first_field;

static void begin(const char *name, size_t size) {
    printf("%s\n  \"%s\": {\"__size__\": %zu", first_struct ? "{" : ",", name, size);
    first_struct = 0;
    first_field = 0;
}
static void field(const char *name, size_t offset) { printf(", \"%s\": %zu", name, offset); }
static void end(void) { printf("}"); (void)first_field; }

#define BEGIN(T) begin(#T, sizeof(T))
#define FIELD(T, f) field(#f, offsetof(T, f))

int main(void) {
    BEGIN(agoraish_event_handler);
    FIELD(agoraish_event_handler, struct_size);
    FIELD(agoraish_event_handler, user_data);
    FIELD(agoraish_event_handler, on_api_call_executed);
    FIELD(agoraish_event_handler, on_join_channel_success);
    FIELD(agoraish_event_handler, on_rejoin_channel_success);
    FIELD(agoraish_event_handler, on_leave_channel);
    FIELD(agoraish_event_handler, on_user_joined);
    FIELD(agoraish_event_handler, on_user_offline);
    FIELD(agoraish_event_handler, on_client_role_changed);
    FIELD(agoraish_event_handler, on_connection_state_changed);
    FIELD(agoraish_event_handler, on_connection_lost);
    FIELD(agoraish_event_handler, on_token_privilege_will_expire);
    FIELD(agoraish_event_handler, on_request_token);
    FIELD(agoraish_event_handler, on_local_user_registered);
    FIELD(agoraish_event_handler, on_user_info_updated);
    FIELD(agoraish_event_handler, on_error);
    FIELD(agoraish_event_handler, on_first_local_audio_frame_published);
    FIELD(agoraish_event_handler, on_first_remote_audio_frame);
    FIELD(agoraish_event_handler, on_first_remote_audio_decoded);
    FIELD(agoraish_event_handler, on_user_mute_audio);
    FIELD(agoraish_event_handler, on_local_audio_state_changed);
    FIELD(agoraish_event_handler, on_remote_audio_state_changed);
    FIELD(agoraish_event_handler, on_audio_volume_indication);
    FIELD(agoraish_event_handler, on_active_speaker);
    FIELD(agoraish_event_handler, on_rtc_stats);
    FIELD(agoraish_event_handler, on_local_audio_stats);
    FIELD(agoraish_event_handler, on_remote_audio_stats);
    FIELD(agoraish_event_handler, on_first_local_video_frame_published);
    FIELD(agoraish_event_handler, on_first_remote_video_decoded);
    FIELD(agoraish_event_handler, on_video_size_changed);
    FIELD(agoraish_event_handler, on_user_mute_video);
    FIELD(agoraish_event_handler, on_first_local_video_frame);
    FIELD(agoraish_event_handler, on_first_remote_video_frame);
    FIELD(agoraish_event_handler, on_user_enable_video);
    FIELD(agoraish_event_handler, on_user_enable_local_video);
    FIELD(agoraish_event_handler, on_local_video_state_changed);
    FIELD(agoraish_event_handler, on_remote_video_state_changed);
    FIELD(agoraish_event_handler, on_local_video_stats);
    FIELD(agoraish_event_handler, on_remote_video_stats);
    FIELD(agoraish_event_handler, on_snapshot_taken);
    FIELD(agoraish_event_handler, on_network_quality);
    FIELD(agoraish_event_handler, on_local_publish_fallback_to_audio_only);
    FIELD(agoraish_event_handler, on_remote_subscribe_fallback_to_audio_only);
    FIELD(agoraish_event_handler, on_lastmile_quality);
    FIELD(agoraish_event_handler, on_lastmile_probe_result);
    FIELD(agoraish_event_handler, on_stream_message);
    FIELD(agoraish_event_handler, on_stream_message_error);
    FIELD(agoraish_event_handler, on_encryption_error);
    FIELD(agoraish_event_handler, on_audio_metadata_received);
    end();

    BEGIN(agoraish_engine_config);
    FIELD(agoraish_engine_config, struct_size);
    FIELD(agoraish_engine_config, app_id);
    FIELD(agoraish_engine_config, event_handler);
    FIELD(agoraish_engine_config, server_url);
    FIELD(agoraish_engine_config, log_file);
    FIELD(agoraish_engine_config, log_file_size_kb);
    FIELD(agoraish_engine_config, log_level);
    FIELD(agoraish_engine_config, area_code);
    end();

    BEGIN(agoraish_user_info);
    FIELD(agoraish_user_info, uid);
    FIELD(agoraish_user_info, user_account);
    end();

    BEGIN(agoraish_rtc_stats);
    FIELD(agoraish_rtc_stats, struct_size);
    FIELD(agoraish_rtc_stats, duration);
    FIELD(agoraish_rtc_stats, tx_bytes);
    FIELD(agoraish_rtc_stats, rx_bytes);
    FIELD(agoraish_rtc_stats, tx_packets);
    FIELD(agoraish_rtc_stats, rx_packets);
    FIELD(agoraish_rtc_stats, user_count);
    FIELD(agoraish_rtc_stats, tx_kbitrate);
    FIELD(agoraish_rtc_stats, tx_audio_bytes);
    FIELD(agoraish_rtc_stats, rx_audio_bytes);
    FIELD(agoraish_rtc_stats, rx_kbitrate);
    FIELD(agoraish_rtc_stats, tx_audio_kbitrate);
    FIELD(agoraish_rtc_stats, rx_audio_kbitrate);
    FIELD(agoraish_rtc_stats, memory_app_usage_kb);
    FIELD(agoraish_rtc_stats, cpu_app_usage);
    FIELD(agoraish_rtc_stats, tx_video_kbitrate);
    FIELD(agoraish_rtc_stats, rx_video_kbitrate);
    FIELD(agoraish_rtc_stats, gateway_rtt);
    FIELD(agoraish_rtc_stats, lastmile_delay);
    FIELD(agoraish_rtc_stats, tx_packet_loss_rate);
    FIELD(agoraish_rtc_stats, rx_packet_loss_rate);
    end();

    BEGIN(agoraish_server_config);
    FIELD(agoraish_server_config, struct_size);
    FIELD(agoraish_server_config, host);
    FIELD(agoraish_server_config, signaling_port);
    FIELD(agoraish_server_config, http_port);
    FIELD(agoraish_server_config, config_json);
    end();

    /* ABI 0.4: audio. */
    BEGIN(agoraish_audio_volume_info);
    FIELD(agoraish_audio_volume_info, uid);
    FIELD(agoraish_audio_volume_info, volume);
    FIELD(agoraish_audio_volume_info, vad);
    end();

    BEGIN(agoraish_local_audio_stats);
    FIELD(agoraish_local_audio_stats, struct_size);
    FIELD(agoraish_local_audio_stats, num_channels);
    FIELD(agoraish_local_audio_stats, sent_sample_rate);
    FIELD(agoraish_local_audio_stats, sent_bitrate);
    FIELD(agoraish_local_audio_stats, tx_packet_loss_rate);
    end();

    BEGIN(agoraish_remote_audio_stats);
    FIELD(agoraish_remote_audio_stats, struct_size);
    FIELD(agoraish_remote_audio_stats, uid);
    FIELD(agoraish_remote_audio_stats, quality);
    FIELD(agoraish_remote_audio_stats, network_transport_delay);
    FIELD(agoraish_remote_audio_stats, jitter_buffer_delay);
    FIELD(agoraish_remote_audio_stats, audio_loss_rate);
    FIELD(agoraish_remote_audio_stats, num_channels);
    FIELD(agoraish_remote_audio_stats, received_sample_rate);
    FIELD(agoraish_remote_audio_stats, received_bitrate);
    FIELD(agoraish_remote_audio_stats, total_frozen_time);
    FIELD(agoraish_remote_audio_stats, frozen_rate);
    FIELD(agoraish_remote_audio_stats, total_active_time);
    FIELD(agoraish_remote_audio_stats, fec_recovered_frames);
    FIELD(agoraish_remote_audio_stats, concealed_frames);
    FIELD(agoraish_remote_audio_stats, end_to_end_delay);
    end();

    BEGIN(agoraish_audio_frame);
    FIELD(agoraish_audio_frame, type);
    FIELD(agoraish_audio_frame, samples_per_channel);
    FIELD(agoraish_audio_frame, bytes_per_sample);
    FIELD(agoraish_audio_frame, channels);
    FIELD(agoraish_audio_frame, samples_per_sec);
    FIELD(agoraish_audio_frame, buffer);
    FIELD(agoraish_audio_frame, render_time_ms);
    FIELD(agoraish_audio_frame, avsync_type);
    end();

    BEGIN(agoraish_audio_frame_observer);
    FIELD(agoraish_audio_frame_observer, struct_size);
    FIELD(agoraish_audio_frame_observer, user_data);
    FIELD(agoraish_audio_frame_observer, observed_position);
    FIELD(agoraish_audio_frame_observer, on_record_audio_frame);
    FIELD(agoraish_audio_frame_observer, on_playback_audio_frame);
    FIELD(agoraish_audio_frame_observer, on_mixed_audio_frame);
    FIELD(agoraish_audio_frame_observer, on_playback_audio_frame_before_mixing);
    end();

    BEGIN(agoraish_audio_recording_config);
    FIELD(agoraish_audio_recording_config, struct_size);
    FIELD(agoraish_audio_recording_config, file_path);
    FIELD(agoraish_audio_recording_config, sample_rate);
    FIELD(agoraish_audio_recording_config, position);
    FIELD(agoraish_audio_recording_config, quality);
    end();

    BEGIN(agoraish_audio_device_info);
    FIELD(agoraish_audio_device_info, id);
    FIELD(agoraish_audio_device_info, name);
    end();

    /* ABI 0.5: video. */
    BEGIN(agoraish_video_encoder_configuration);
    FIELD(agoraish_video_encoder_configuration, struct_size);
    FIELD(agoraish_video_encoder_configuration, width);
    FIELD(agoraish_video_encoder_configuration, height);
    FIELD(agoraish_video_encoder_configuration, frame_rate);
    FIELD(agoraish_video_encoder_configuration, bitrate);
    FIELD(agoraish_video_encoder_configuration, min_bitrate);
    FIELD(agoraish_video_encoder_configuration, codec_type);
    FIELD(agoraish_video_encoder_configuration, orientation_mode);
    FIELD(agoraish_video_encoder_configuration, degradation_preference);
    FIELD(agoraish_video_encoder_configuration, mirror_mode);
    end();

    BEGIN(agoraish_external_video_frame);
    FIELD(agoraish_external_video_frame, struct_size);
    FIELD(agoraish_external_video_frame, format);
    FIELD(agoraish_external_video_frame, width);
    FIELD(agoraish_external_video_frame, height);
    FIELD(agoraish_external_video_frame, y_buffer);
    FIELD(agoraish_external_video_frame, u_buffer);
    FIELD(agoraish_external_video_frame, v_buffer);
    FIELD(agoraish_external_video_frame, y_stride);
    FIELD(agoraish_external_video_frame, u_stride);
    FIELD(agoraish_external_video_frame, v_stride);
    FIELD(agoraish_external_video_frame, timestamp);
    FIELD(agoraish_external_video_frame, rotation);
    end();

    BEGIN(agoraish_video_frame);
    FIELD(agoraish_video_frame, type);
    FIELD(agoraish_video_frame, width);
    FIELD(agoraish_video_frame, height);
    FIELD(agoraish_video_frame, y_stride);
    FIELD(agoraish_video_frame, u_stride);
    FIELD(agoraish_video_frame, v_stride);
    FIELD(agoraish_video_frame, y_buffer);
    FIELD(agoraish_video_frame, u_buffer);
    FIELD(agoraish_video_frame, v_buffer);
    FIELD(agoraish_video_frame, rotation);
    FIELD(agoraish_video_frame, render_time_ms);
    end();

    BEGIN(agoraish_video_canvas);
    FIELD(agoraish_video_canvas, struct_size);
    FIELD(agoraish_video_canvas, uid);
    FIELD(agoraish_video_canvas, on_frame);
    FIELD(agoraish_video_canvas, user_data);
    FIELD(agoraish_video_canvas, render_mode);
    FIELD(agoraish_video_canvas, mirror_mode);
    FIELD(agoraish_video_canvas, view_width);
    FIELD(agoraish_video_canvas, view_height);
    end();

    /* ABI 0.6: video. */
    BEGIN(agoraish_local_video_stats);
    FIELD(agoraish_local_video_stats, struct_size);
    FIELD(agoraish_local_video_stats, sent_bitrate);
    FIELD(agoraish_local_video_stats, sent_frame_rate);
    FIELD(agoraish_local_video_stats, encoder_output_frame_rate);
    FIELD(agoraish_local_video_stats, renderer_output_frame_rate);
    FIELD(agoraish_local_video_stats, target_bitrate);
    FIELD(agoraish_local_video_stats, target_frame_rate);
    FIELD(agoraish_local_video_stats, encoded_bitrate);
    FIELD(agoraish_local_video_stats, encoded_frame_width);
    FIELD(agoraish_local_video_stats, encoded_frame_height);
    FIELD(agoraish_local_video_stats, encoded_frame_count);
    FIELD(agoraish_local_video_stats, codec_type);
    FIELD(agoraish_local_video_stats, capture_frame_rate);
    end();

    BEGIN(agoraish_remote_video_stats);
    FIELD(agoraish_remote_video_stats, struct_size);
    FIELD(agoraish_remote_video_stats, uid);
    FIELD(agoraish_remote_video_stats, width);
    FIELD(agoraish_remote_video_stats, height);
    FIELD(agoraish_remote_video_stats, received_bitrate);
    FIELD(agoraish_remote_video_stats, decoder_output_frame_rate);
    FIELD(agoraish_remote_video_stats, renderer_output_frame_rate);
    FIELD(agoraish_remote_video_stats, packet_loss_rate);
    FIELD(agoraish_remote_video_stats, rx_stream_type);
    FIELD(agoraish_remote_video_stats, total_frozen_time);
    FIELD(agoraish_remote_video_stats, frozen_rate);
    FIELD(agoraish_remote_video_stats, total_active_time);
    FIELD(agoraish_remote_video_stats, publish_duration);
    end();

    BEGIN(agoraish_video_frame_observer);
    FIELD(agoraish_video_frame_observer, struct_size);
    FIELD(agoraish_video_frame_observer, observed_position);
    FIELD(agoraish_video_frame_observer, on_capture_video_frame);
    FIELD(agoraish_video_frame_observer, on_pre_encode_video_frame);
    FIELD(agoraish_video_frame_observer, on_render_video_frame);
    FIELD(agoraish_video_frame_observer, user_data);
    end();

    BEGIN(agoraish_watermark_options);
    FIELD(agoraish_watermark_options, struct_size);
    FIELD(agoraish_watermark_options, visible_in_preview);
    FIELD(agoraish_watermark_options, landscape_x);
    FIELD(agoraish_watermark_options, landscape_y);
    FIELD(agoraish_watermark_options, landscape_width);
    FIELD(agoraish_watermark_options, landscape_height);
    FIELD(agoraish_watermark_options, portrait_x);
    FIELD(agoraish_watermark_options, portrait_y);
    FIELD(agoraish_watermark_options, portrait_width);
    FIELD(agoraish_watermark_options, portrait_height);
    end();

    BEGIN(agoraish_video_format);
    FIELD(agoraish_video_format, width);
    FIELD(agoraish_video_format, height);
    FIELD(agoraish_video_format, fps);
    FIELD(agoraish_video_format, fourcc);
    end();

    BEGIN(agoraish_video_device_info);
    FIELD(agoraish_video_device_info, id);
    FIELD(agoraish_video_device_info, name);
    FIELD(agoraish_video_device_info, format_count);
    FIELD(agoraish_video_device_info, formats);
    end();

    BEGIN(agoraish_camera_capturer_configuration);
    FIELD(agoraish_camera_capturer_configuration, struct_size);
    FIELD(agoraish_camera_capturer_configuration, preference);
    FIELD(agoraish_camera_capturer_configuration, capture_width);
    FIELD(agoraish_camera_capturer_configuration, capture_height);
    end();

    /* ABI 0.7: the last-mile probe. */
    BEGIN(agoraish_lastmile_probe_config);
    FIELD(agoraish_lastmile_probe_config, struct_size);
    FIELD(agoraish_lastmile_probe_config, probe_uplink);
    FIELD(agoraish_lastmile_probe_config, probe_downlink);
    FIELD(agoraish_lastmile_probe_config, expected_uplink_bitrate);
    FIELD(agoraish_lastmile_probe_config, expected_downlink_bitrate);
    FIELD(agoraish_lastmile_probe_config, token);
    FIELD(agoraish_lastmile_probe_config, channel_id);
    end();

    /* ABI 0.9: the echo test's configuration. */
    BEGIN(agoraish_echo_test_configuration);
    FIELD(agoraish_echo_test_configuration, struct_size);
    FIELD(agoraish_echo_test_configuration, enable_audio);
    FIELD(agoraish_echo_test_configuration, enable_video);
    FIELD(agoraish_echo_test_configuration, token);
    FIELD(agoraish_echo_test_configuration, channel_id);
    FIELD(agoraish_echo_test_configuration, interval_in_seconds);
    end();

    BEGIN(agoraish_lastmile_probe_one_way_result);
    FIELD(agoraish_lastmile_probe_one_way_result, packet_loss_rate);
    FIELD(agoraish_lastmile_probe_one_way_result, jitter);
    FIELD(agoraish_lastmile_probe_one_way_result, available_bandwidth);
    end();

    BEGIN(agoraish_lastmile_probe_result);
    FIELD(agoraish_lastmile_probe_result, struct_size);
    FIELD(agoraish_lastmile_probe_result, state);
    FIELD(agoraish_lastmile_probe_result, uplink_report);
    FIELD(agoraish_lastmile_probe_result, downlink_report);
    FIELD(agoraish_lastmile_probe_result, rtt);
    end();

    /* ABI 0.8: data streams, metadata, encryption. */
    BEGIN(agoraish_data_stream_config);
    FIELD(agoraish_data_stream_config, struct_size);
    FIELD(agoraish_data_stream_config, sync_with_audio);
    FIELD(agoraish_data_stream_config, ordered);
    end();

    BEGIN(agoraish_metadata);
    FIELD(agoraish_metadata, uid);
    FIELD(agoraish_metadata, size);
    FIELD(agoraish_metadata, buffer);
    FIELD(agoraish_metadata, timestamp_ms);
    end();

    BEGIN(agoraish_metadata_observer);
    FIELD(agoraish_metadata_observer, struct_size);
    FIELD(agoraish_metadata_observer, user_data);
    FIELD(agoraish_metadata_observer, get_max_metadata_size);
    FIELD(agoraish_metadata_observer, on_ready_to_send_metadata);
    FIELD(agoraish_metadata_observer, on_metadata_received);
    end();

    BEGIN(agoraish_encryption_config);
    FIELD(agoraish_encryption_config, struct_size);
    FIELD(agoraish_encryption_config, encryption_mode);
    FIELD(agoraish_encryption_config, encryption_key);
    FIELD(agoraish_encryption_config, encryption_kdf_salt);
    end();

    BEGIN(agoraish_packet);
    FIELD(agoraish_packet, buffer);
    FIELD(agoraish_packet, size);
    end();

    BEGIN(agoraish_packet_observer);
    FIELD(agoraish_packet_observer, struct_size);
    FIELD(agoraish_packet_observer, user_data);
    FIELD(agoraish_packet_observer, on_send_audio_packet);
    FIELD(agoraish_packet_observer, on_send_video_packet);
    FIELD(agoraish_packet_observer, on_receive_audio_packet);
    FIELD(agoraish_packet_observer, on_receive_video_packet);
    end();

    printf("\n}\n");
    return 0;
}
