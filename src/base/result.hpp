// Result<T>: a value or a one-line error message. Parsers and validators of untrusted input return
// these so that every rejection names what was wrong; nothing in cuzk throws across a layer for bad input.
// An error whose kind changes what a caller does (the server's gRPC status, a retry) carries a code;
// callers branch on the code, never on the words.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace cuzk {

// What kind of failure an Error is, for callers that act on it (the server maps these to gRPC codes).
enum class ErrorCode : unsigned char {
  kUnspecified = 0,  // the message is all there is (most validation errors: invalid input)
  kInvalidArgument,
  kUnavailable,        // not serving now (shutting down)
  kResourceExhausted,  // a limit is reached; retry later
  kNotFound,
  kPermissionDenied,
  kFailedPrecondition,
};

struct Error {
  std::string message;
  ErrorCode code = ErrorCode::kUnspecified;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}                     // NOLINT: implicit by design
  Result(Error e) : error_(std::move(e.message)), code_(e.code) {}  // NOLINT
  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  const std::string& error() const { return error_; }
  ErrorCode code() const { return code_; }
  Error failure() const { return Error{error_, code_}; }  // to pass the error on with its code
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }

 private:
  std::optional<T> value_;
  std::string error_;
  ErrorCode code_ = ErrorCode::kUnspecified;
};

struct Ok {};
using Status = Result<Ok>;
inline Status ok_status() { return Ok{}; }

}  // namespace cuzk
