// Errors are values: Result<T> holds a T or an Error, with the subset of C++23 std::expected's
// API that wvlock uses, so moving to std::expected later is a rename. Cheap to include.
#pragma once

#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace wv {

/// What kind of failure an Error is; callers branch on it (exit codes, retries).
enum class ErrorCode {
  kParse,            ///< malformed input text (position in the message)
  kInvalidInput,     ///< well-formed but unacceptable input
  kIo,               ///< a file system operation failed
  kNotFound,         ///< a file, package or key does not exist
  kNetwork,          ///< a transfer failed
  kIntegrity,        ///< a hash or size did not match
  kInvalidLockfile,  ///< pylock.toml does not validate
  kUnsupported,      ///< valid input that wvlock does not handle
  kLimit,            ///< a resource bound was reached
  kUnavailable,      ///< no installable candidate (with the reason)
};

/// A failure a user can act on: a one-sentence message plus optional notes (hints, context).
struct Error {
  ErrorCode code = ErrorCode::kInvalidInput;
  std::string message;
  std::vector<std::string> notes;

  /// The message, then each note on its own line.
  std::string to_string() const;
  /// Prefixes the message with context ("reading `pyproject.toml`: ...").
  Error&& with_context(std::string_view context) &&;
  Error&& with_note(std::string note) &&;
};

Error make_error(ErrorCode code, std::string message);

/// A parse error rendered with the input and a caret under `offset`:
///   invalid version `1.0+`: expected a local version label after `+`
Error make_parse_error(std::string_view what, std::string_view input, std::size_t offset,
                       std::string_view expected);

/// Called on a broken invariant (a programming error, never bad input): prints and aborts.
[[noreturn]] void check_failed(const char* file, int line, const char* message);

#define WV_CHECK(condition, message) \
  do {                               \
    if (!(condition)) ::wv::check_failed(__FILE__, __LINE__, message); \
  } while (false)

/// A value or an Error. [[nodiscard]]: an ignored error is a bug.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(const T& value) : storage_(std::in_place_index<0>, value) {}
  Result(T&& value) : storage_(std::in_place_index<0>, std::move(value)) {}
  Result(Error error) : storage_(std::in_place_index<1>, std::move(error)) {}
  template <class U>
    requires(std::is_constructible_v<T, U&&> && !std::is_same_v<std::decay_t<U>, T> &&
             !std::is_same_v<std::decay_t<U>, Error> &&
             !std::is_same_v<std::decay_t<U>, Result<T>>)
  Result(U&& value) : storage_(std::in_place_index<0>, std::forward<U>(value)) {}

  bool has_value() const { return storage_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & { return checked(); }
  const T& value() const& { return const_cast<Result*>(this)->checked(); }
  T&& value() && { return std::move(checked()); }
  T& operator*() & { return checked(); }
  const T& operator*() const& { return const_cast<Result*>(this)->checked(); }
  T&& operator*() && { return std::move(checked()); }
  T* operator->() { return &checked(); }
  const T* operator->() const { return &const_cast<Result*>(this)->checked(); }

  const Error& error() const& {
    WV_CHECK(!has_value(), "Result::error() on a value");
    return std::get<1>(storage_);
  }
  Error&& error() && {
    WV_CHECK(!has_value(), "Result::error() on a value");
    return std::move(std::get<1>(storage_));
  }
  template <class U>
  T value_or(U&& fallback) const& {
    return has_value() ? std::get<0>(storage_) : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  T& checked() {
    WV_CHECK(has_value(), "Result::value() on an error");
    return std::get<0>(storage_);
  }
  std::variant<T, Error> storage_;
};

/// Result<void>: success or an Error.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), failed_(true) {}
  bool has_value() const { return !failed_; }
  explicit operator bool() const { return has_value(); }
  void value() const { WV_CHECK(has_value(), "Result::value() on an error"); }
  const Error& error() const& {
    WV_CHECK(failed_, "Result::error() on a value");
    return error_;
  }
  Error&& error() && {
    WV_CHECK(failed_, "Result::error() on a value");
    return std::move(error_);
  }

 private:
  Error error_;
  bool failed_ = false;
};

}  // namespace wv

/// Evaluates a Result expression; on error returns the error from the enclosing function.
#define WV_TRY(expression)                                   \
  do {                                                       \
    auto&& wv_try_result_ = (expression);                    \
    if (!wv_try_result_) return std::move(wv_try_result_).error(); \
  } while (false)

#define WV_CONCAT_INNER(a, b) a##b
#define WV_CONCAT(a, b) WV_CONCAT_INNER(a, b)
/// `WV_ASSIGN_OR_RETURN(auto x, parse(...));` binds the value or returns the error.
#define WV_ASSIGN_OR_RETURN(declaration, expression) \
  WV_ASSIGN_OR_RETURN_IMPL(WV_CONCAT(wv_result_, __LINE__), declaration, expression)
#define WV_ASSIGN_OR_RETURN_IMPL(temporary, declaration, expression) \
  auto temporary = (expression);                                     \
  if (!temporary) return std::move(temporary).error();               \
  declaration = std::move(*temporary)
