#include "src/cli/index_overrides.h"

#include <algorithm>

#include "src/base/str.h"
#include "src/cli/options.h"

namespace wv::cli {
namespace {

// `NAME=URL` or a bare URL (named `index`, `index-2`, ... in the order given).
Result<targets::IndexConfig> parse_index(const std::string& text, std::size_t position,
                                         std::string_view source) {
  targets::IndexConfig index;
  const std::size_t equals = text.find('=');
  const std::size_t scheme = text.find("://");
  if (equals != std::string::npos && (scheme == std::string::npos || equals < scheme)) {
    index.name = text.substr(0, equals);
    index.url = text.substr(equals + 1);
  } else {
    index.name = position == 0 ? std::string("index") : str_cat("index-", position + 1);
    index.url = text;
  }
  const bool name_ok = !index.name.empty() &&
      std::all_of(index.name.begin(), index.name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '_' || c == '-';
      });
  if (!name_ok || index.url.empty()) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat(in_backticks(str_cat(source, " ", text)),
                              ": expected NAME=URL or URL (NAME of letters, digits, `.`, `_`, `-`)"));
  }
  return index;
}

std::vector<std::string> split_spaces(std::string_view text) {
  std::vector<std::string> items;
  for (std::string_view item : split(text, ' ')) {
    if (!item.empty()) items.emplace_back(item);
  }
  return items;
}

}  // namespace

Result<void> extract_index_flags(Arguments& arguments, IndexOverrides& overrides) {
  WV_ASSIGN_OR_RETURN(auto default_index, arguments.extract_value("--default-index"));
  if (default_index) overrides.default_index = *default_index;
  while (true) {
    WV_ASSIGN_OR_RETURN(auto index, arguments.extract_value("--index"));
    if (!index) break;
    overrides.indexes.push_back(*index);
  }
  if (arguments.extract_flag("--no-index")) overrides.no_index = true;
  return {};
}

Result<void> apply_index_overrides(targets::ProjectConfig& config, const IndexOverrides& overrides,
                                   const EnvironmentLookup& environment) {
  if (overrides.no_index) {
    config.indexes.clear();
    return {};
  }
  std::vector<std::string> extra = overrides.indexes;
  std::string_view extra_source = "--index";
  if (extra.empty()) {
    if (std::optional<std::string> value = environment("WVLOCK_INDEX")) extra = split_spaces(*value);
    extra_source = "WVLOCK_INDEX";
  }
  std::vector<targets::IndexConfig> added;
  for (std::size_t i = 0; i < extra.size(); ++i) {
    WV_ASSIGN_OR_RETURN(targets::IndexConfig index, parse_index(extra[i], i, extra_source));
    // A name the project also declares: the command line's URL wins, asked first.
    config.indexes.erase(std::remove_if(config.indexes.begin(), config.indexes.end(),
                                        [&](const targets::IndexConfig& declared) {
                                          return declared.name == index.name;
                                        }),
                         config.indexes.end());
    added.push_back(std::move(index));
  }
  config.indexes.insert(config.indexes.begin(), added.begin(), added.end());
  std::optional<std::string> default_url = overrides.default_index;
  if (!default_url) {
    if (std::optional<std::string> value = environment("WVLOCK_DEFAULT_INDEX"); value && !value->empty()) {
      default_url = *value;
    }
  }
  const bool declared_default =
      std::any_of(config.indexes.begin(), config.indexes.end(),
                  [](const targets::IndexConfig& index) { return index.is_default; });
  if (default_url) {
    config.indexes.erase(std::remove_if(config.indexes.begin(), config.indexes.end(),
                                        [](const targets::IndexConfig& index) { return index.is_default; }),
                         config.indexes.end());
  } else if (declared_default) {
    return {};
  }
  targets::IndexConfig fallback;
  fallback.name = default_url ? std::string("default") : std::string(kPublicIndexName);
  fallback.url = default_url.value_or(kPublicIndexUrl);
  fallback.is_default = true;
  config.indexes.push_back(std::move(fallback));
  return {};
}

}  // namespace wv::cli
