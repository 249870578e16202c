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
    _ = (getVersion, getErrorDescription, getLastError, engineCreate, engineRelease,
         engineSetParameters, engineGetParameter, engineSetLogFile, engineSetLogFilter,
         engineSetLogLevel, engineSetLogFileSize)
}
