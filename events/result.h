#pragma once

/// Errors as values. Every fallible call across a room's boundary returns a
/// `Status` or a `Result<T>`; exceptions never cross a room. An error carries a
/// code (what kind of failure) and a message that names the thing that failed:
/// the key, the value, the sequence number, the file, the offset.

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace ballast::events {

enum class ErrorCode {
    invalid_argument,  // bad input from a user: a flag, a config value, a file
    not_found,         // asked for something that is not there
    corruption,        // bytes that fail a check: CRC, verifier, sequence
    io_error,          // the operating system or RocksDB refused
    conflict,          // the request contradicts the current state
    unsupported,       // not built (yet): the message says what is missing
};

const char* error_code_name(ErrorCode code);

struct Error {
    ErrorCode code;
    std::string message;

    /// "corruption: journal record seq 42: CRC32C mismatch ..."
    std::string to_string() const;
};

inline Error make_error(ErrorCode code, std::string message) {
    return Error{code, std::move(message)};
}

/// The outcome of a call that returns nothing on success.
class [[nodiscard]] Status {
public:
    Status() = default;
    Status(Error error) : _error(std::move(error)), _failed(true) {}  // NOLINT: implicit by design

    static Status ok_status() { return Status(); }

    bool ok() const { return !_failed; }
    explicit operator bool() const { return ok(); }
    const Error& error() const {
        assert(_failed);
        return _error;
    }

private:
    Error _error{ErrorCode::invalid_argument, {}};
    bool _failed = false;
};

/// A value or the error that prevented it.
template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : _state(std::in_place_index<0>, std::move(value)) {}  // NOLINT
    Result(Error error) : _state(std::in_place_index<1>, std::move(error)) {}  // NOLINT

    bool ok() const { return _state.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & {
        assert(ok());
        return std::get<0>(_state);
    }
    const T& value() const& {
        assert(ok());
        return std::get<0>(_state);
    }
    T&& value() && {
        assert(ok());
        return std::get<0>(std::move(_state));
    }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

    const Error& error() const {
        assert(!ok());
        return std::get<1>(_state);
    }
    /// The error as a Status, for callers that return Status.
    Status status() const { return ok() ? Status() : Status(error()); }

private:
    std::variant<T, Error> _state;
};

}  // namespace ballast::events
