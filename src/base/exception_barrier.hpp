// Exception barriers. cuzk reports bad input as Result errors, but code on an untrusted path may
// still throw: std::bad_alloc from an allocation nobody bounded, std::length_error, a library's
// exception. Uncaught on a worker thread that is std::terminate: the daemon aborts and every job in
// flight is lost. Each stage of a job and each tool's main therefore runs behind a barrier that turns
// any exception into the one-line error of that stage, so the job fails and the process lives on.
#pragma once

#include <exception>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>

#include "base/result.hpp"

namespace cuzk {

// The one-line message for the exception being handled (call inside a catch block).
inline std::string current_exception_message() {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return "out of memory (std::bad_alloc)";
  } catch (const std::exception& e) {
    return std::string("unexpected exception: ") + e.what();
  } catch (...) {
    return "unexpected exception of unknown type";
  }
}

// f() returns a Result<T> (or Status); an exception becomes Error{"<stage>: <what>"} (just "<what>"
// when stage is empty: the caller's message already names the stage).
template <class F>
auto guarded(std::string_view stage, F&& f) noexcept -> std::invoke_result_t<F&> {
  try {
    return f();
  } catch (...) {
    try {
      std::string what = current_exception_message();
      return Error{stage.empty() ? std::move(what) : std::string(stage) + ": " + what};
    } catch (...) {
      return Error{};  // out of memory even for the message
    }
  }
}

}  // namespace cuzk
