#include "src/cli/options.h"

#include "src/base/log.h"
#include "src/base/str.h"
#include "src/pkg/name.h"

namespace wv::cli {

bool Arguments::take_flag(std::string_view flag) {
  if (position_ < items_.size() && items_[position_] == flag) {
    ++position_;
    return true;
  }
  return false;
}

Result<std::optional<std::string>> Arguments::take_value(std::string_view name) {
  if (position_ >= items_.size()) return std::optional<std::string>();
  const std::string& item = items_[position_];
  if (item == name) {
    if (position_ + 1 >= items_.size()) {
      return make_error(ErrorCode::kInvalidInput, str_cat(in_backticks(name), " needs a value"));
    }
    position_ += 2;
    return std::optional<std::string>(items_[position_ - 1]);
  }
  if (item.size() > name.size() && item.compare(0, name.size(), name) == 0 &&
      item[name.size()] == '=') {
    ++position_;
    return std::optional<std::string>(item.substr(name.size() + 1));
  }
  return std::optional<std::string>();
}

bool Arguments::extract_flag(std::string_view flag) {
  for (std::size_t i = position_; i < items_.size(); ++i) {
    if (items_[i] == flag) {
      items_.erase(items_.begin() + std::ptrdiff_t(i));
      return true;
    }
  }
  return false;
}

Result<std::optional<std::string>> Arguments::extract_value(std::string_view name) {
  for (std::size_t i = position_; i < items_.size(); ++i) {
    const std::string& item = items_[i];
    if (item == name) {
      if (i + 1 >= items_.size()) {
        return make_error(ErrorCode::kInvalidInput, str_cat(in_backticks(name), " needs a value"));
      }
      std::string value = items_[i + 1];
      items_.erase(items_.begin() + std::ptrdiff_t(i), items_.begin() + std::ptrdiff_t(i) + 2);
      return std::optional<std::string>(value);
    }
    if (item.size() > name.size() && item.compare(0, name.size(), name) == 0 &&
        item[name.size()] == '=') {
      std::string value = item.substr(name.size() + 1);
      items_.erase(items_.begin() + std::ptrdiff_t(i));
      return std::optional<std::string>(value);
    }
  }
  return std::optional<std::string>();
}

std::vector<std::string> Arguments::split_off_after(std::string_view marker) {
  for (std::size_t i = position_; i < items_.size(); ++i) {
    if (items_[i] != marker) continue;
    std::vector<std::string> tail(items_.begin() + std::ptrdiff_t(i) + 1, items_.end());
    items_.erase(items_.begin() + std::ptrdiff_t(i), items_.end());
    return tail;
  }
  return {};
}

std::optional<std::string> Arguments::take_positional() {
  if (position_ < items_.size() && (items_[position_].empty() || items_[position_][0] != '-')) {
    return items_[position_++];
  }
  return std::nullopt;
}

Result<void> Arguments::expect_done() const {
  if (position_ < items_.size()) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("unexpected argument ", in_backticks(items_[position_])));
  }
  return {};
}

Result<std::vector<pkg::PackageName>> extract_names(Arguments& arguments, std::string_view flag) {
  std::vector<pkg::PackageName> names;
  while (true) {
    WV_ASSIGN_OR_RETURN(auto text, arguments.extract_value(flag));
    if (!text) return names;
    Result<pkg::PackageName> name = pkg::parse_package_name(*text);
    if (!name) return std::move(name).error().with_context(str_cat("`", flag, "`"));
    names.push_back(std::move(*name));
  }
}

Result<std::vector<pkg::ExtraName>> extract_extra_names(Arguments& arguments,
                                                        std::string_view flag) {
  std::vector<pkg::ExtraName> names;
  while (true) {
    WV_ASSIGN_OR_RETURN(auto text, arguments.extract_value(flag));
    if (!text) return names;
    Result<pkg::ExtraName> name = pkg::parse_extra_name(*text);
    if (!name) return std::move(name).error().with_context(str_cat("`", flag, "`"));
    names.push_back(std::move(*name));
  }
}

int exit_code_for(const Error& error) {
  switch (error.code) {
    case ErrorCode::kIo:
    case ErrorCode::kNetwork:
      return kExitIo;
    case ErrorCode::kUnavailable:
      return kExitFailure;
    default:
      return kExitUsage;
  }
}

void print_error(const Error& error) {
  std::string text = "error: " + error.message;
  for (const std::string& note : error.notes) text += "\n" + note;
  print_diagnostic(text);
}

}  // namespace wv::cli
