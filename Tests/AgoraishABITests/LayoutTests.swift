import CAgoraishABI
import Foundation
import Testing

/// Swift sees the structs of include/agoraish.h with the sizes and offsets
/// that a C compiler gives them. The C side is Tests/c/layout_probe.c, whose
/// JSON output `make test` passes in AGORAISH_ABI_LAYOUT.
@Suite struct LayoutTests {
    /// Sizes and field offsets as Swift computes them, in the probe's format.
    static func swiftLayout() -> [String: [String: Int]] {
        [
            "agoraish_event_handler": [
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
            ],
            "agoraish_engine_config": [
                "__size__": MemoryLayout<agoraish_engine_config>.size,
                "struct_size": MemoryLayout<agoraish_engine_config>.offset(of: \.struct_size)!,
                "app_id": MemoryLayout<agoraish_engine_config>.offset(of: \.app_id)!,
                "event_handler": MemoryLayout<agoraish_engine_config>.offset(of: \.event_handler)!,
                "server_url": MemoryLayout<agoraish_engine_config>.offset(of: \.server_url)!,
                "log_file": MemoryLayout<agoraish_engine_config>.offset(of: \.log_file)!,
                "log_file_size_kb": MemoryLayout<agoraish_engine_config>.offset(of: \.log_file_size_kb)!,
                "log_level": MemoryLayout<agoraish_engine_config>.offset(of: \.log_level)!,
                "area_code": MemoryLayout<agoraish_engine_config>.offset(of: \.area_code)!,
            ],
            "agoraish_user_info": [
                "__size__": MemoryLayout<agoraish_user_info>.size,
                "uid": MemoryLayout<agoraish_user_info>.offset(of: \.uid)!,
                "user_account": MemoryLayout<agoraish_user_info>.offset(of: \.user_account)!,
            ],
            "agoraish_rtc_stats": [
                "__size__": MemoryLayout<agoraish_rtc_stats>.size,
                "struct_size": MemoryLayout<agoraish_rtc_stats>.offset(of: \.struct_size)!,
                "duration": MemoryLayout<agoraish_rtc_stats>.offset(of: \.duration)!,
                "tx_bytes": MemoryLayout<agoraish_rtc_stats>.offset(of: \.tx_bytes)!,
                "rx_bytes": MemoryLayout<agoraish_rtc_stats>.offset(of: \.rx_bytes)!,
                "tx_packets": MemoryLayout<agoraish_rtc_stats>.offset(of: \.tx_packets)!,
                "rx_packets": MemoryLayout<agoraish_rtc_stats>.offset(of: \.rx_packets)!,
                "user_count": MemoryLayout<agoraish_rtc_stats>.offset(of: \.user_count)!,
            ],
            "agoraish_server_config": [
                "__size__": MemoryLayout<agoraish_server_config>.size,
                "struct_size": MemoryLayout<agoraish_server_config>.offset(of: \.struct_size)!,
                "host": MemoryLayout<agoraish_server_config>.offset(of: \.host)!,
                "signaling_port": MemoryLayout<agoraish_server_config>.offset(of: \.signaling_port)!,
                "http_port": MemoryLayout<agoraish_server_config>.offset(of: \.http_port)!,
                "config_json": MemoryLayout<agoraish_server_config>.offset(of: \.config_json)!,
            ],
        ]
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
