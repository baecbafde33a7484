#include "events/result.h"

namespace ballast::events {

const char* error_code_name(ErrorCode code) {
    switch (code) {
        case ErrorCode::invalid_argument: return "invalid argument";
        case ErrorCode::not_found: return "not found";
        case ErrorCode::corruption: return "corruption";
        case ErrorCode::io_error: return "i/o error";
        case ErrorCode::conflict: return "conflict";
        case ErrorCode::unsupported: return "unsupported";
    }
    return "unknown error";
}

std::string Error::to_string() const {
    return std::string(error_code_name(code)) + ": " + message;
}

}  // namespace ballast::events
