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
