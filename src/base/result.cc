#include "src/base/result.h"

#include <cstdlib>

#include "src/base/output.h"
#include "src/base/str.h"

namespace wv {

std::string Error::to_string() const {
  std::string text = message;
  for (const std::string& note : notes) {
    text += '\n';
    text += note;
  }
  return text;
}

Error&& Error::with_context(std::string_view context) && {
  message = std::string(context) + ": " + message;
  return std::move(*this);
}

Error&& Error::with_note(std::string note) && {
  notes.push_back(std::move(note));
  return std::move(*this);
}

Error make_error(ErrorCode code, std::string message) {
  return Error{code, std::move(message), {}};
}

Error make_parse_error(std::string_view what, std::string_view input, std::size_t offset,
                       std::string_view expected) {
  if (offset > input.size()) offset = input.size();
  std::string message;
  message.append("invalid ").append(what).append(" `").append(input).append("`: ").append(expected);
  // The caret line only helps for single-line, reasonably short input.
  Error error{ErrorCode::kParse, std::move(message), {}};
  if (input.size() <= 200 && input.find('\n') == std::string_view::npos) {
    error.notes.push_back("    " + std::string(input));
    error.notes.push_back("    " + std::string(offset, ' ') + "^");
  }
  return error;
}

[[noreturn]] void check_failed(const char* file, int line, const char* message) {
  write_err(str_cat(file, ":", line, ": internal error: ", message, "\n"));
  std::abort();
}

}  // namespace wv
