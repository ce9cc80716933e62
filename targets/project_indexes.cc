// The package indexes of the project file: `[[tool.wvlock.index]]`, the `index-url` and
// `extra-index-url` shorthands, and `index-strategy` (DESIGN.md §2.1).
#include <algorithm>
#include <toml++/toml.h>

#include "src/base/str.h"
#include "targets/project_reader.h"

namespace wv::targets::project_reader {
namespace {

constexpr std::string_view kIndexKeys[] = {"name", "url", "explicit", "default"};

bool is_valid_index_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return is_ascii_alnum(c) || c == '-' || c == '_' || c == '.';
  });
}

IndexConfig positioned_index(std::string name, std::string url, const toml::node& where) {
  IndexConfig index;
  index.name = std::move(name);
  index.url = std::move(url);
  index.line = static_cast<int>(where.source().begin.line);
  index.column = static_cast<int>(where.source().begin.column);
  return index;
}

Result<IndexConfig> read_index(const Reader& reader, const toml::node& node, std::size_t position) {
  const std::string where_index = str_cat("`[[", reader.key("index"), "]]` #", position + 1);
  const toml::table* table = node.as_table();
  if (table == nullptr) return reader.error(node.source(), str_cat(where_index, " must be a table"));
  const toml::node* name_node = table->get("name");
  std::string name;
  if (name_node != nullptr) {
    WV_ASSIGN_OR_RETURN(name, reader.string(*name_node, "name"));
  } else if (reader.is_uv()) {
    name = str_cat("index-", position + 1);  // uv's indexes need a name only to be pinned to
  } else {
    return reader.error(node.source(), str_cat(where_index, " has no `name`"));
  }
  if (!is_valid_index_name(name)) {
    return reader.error(name_node->source(),
                        str_cat("invalid index name ", in_backticks(name),
                                ": expected ASCII letters, digits, `-`, `_` or `.`"));
  }
  const std::string where = str_cat("index ", in_backticks(name));
  WV_TRY(reader.check_keys(*table, kIndexKeys, where));
  const toml::node* url_node = table->get("url");
  if (url_node == nullptr) return reader.error(node.source(), str_cat(where, " has no `url`"));
  WV_ASSIGN_OR_RETURN(std::string url, reader.string(*url_node, "url"));
  if (url.empty()) {
    return reader.error(url_node->source(),
                        str_cat("`url` of ", where, " is empty: give a URL, `file://` URL or path"));
  }
  IndexConfig index = positioned_index(std::move(name), std::move(url), node);
  if (const toml::node* explicit_node = table->get("explicit")) {
    WV_ASSIGN_OR_RETURN(index.explicit_only, reader.boolean(*explicit_node, "explicit"));
  }
  if (const toml::node* default_node = table->get("default")) {
    WV_ASSIGN_OR_RETURN(index.is_default, reader.boolean(*default_node, "default"));
  }
  return index;
}

Result<std::string> shorthand_url(const Reader& reader, const toml::node& node,
                                  std::string_view key) {
  WV_ASSIGN_OR_RETURN(std::string url, reader.string(node, key));
  if (url.empty()) {
    return reader.error(node.source(),
                        str_cat("`", key, "` is empty: give a URL, `file://` URL or path"));
  }
  return url;
}

// One name per index and at most one default; the later one in the file is reported. The
// default goes last in config.indexes (asked last).
Result<void> add_indexes_in_order(const Reader& reader, const std::vector<IndexConfig>& declared,
                                  ProjectConfig& config) {
  std::vector<const IndexConfig*> by_position;
  for (const IndexConfig& index : declared) by_position.push_back(&index);
  std::stable_sort(by_position.begin(), by_position.end(),
                   [](const IndexConfig* a, const IndexConfig* b) {
                     return a->line != b->line ? a->line < b->line : a->column < b->column;
                   });
  const auto label = [](const IndexConfig& index) {
    return index.name == "index-url" ? std::string("`index-url`")
                                     : str_cat("index ", in_backticks(index.name));
  };
  const IndexConfig* default_index = nullptr;
  for (std::size_t i = 0; i < by_position.size(); ++i) {
    const IndexConfig& index = *by_position[i];
    for (std::size_t j = 0; j < i; ++j) {
      if (by_position[j]->name == index.name) {
        return reader.error_at(index.line, index.column,
                               str_cat("duplicate index name ", in_backticks(index.name),
                                       ": line ", by_position[j]->line,
                                       " declares it already; give each index its own name"));
      }
    }
    if (!index.is_default) continue;
    if (default_index != nullptr) {
      return reader.error_at(
          index.line, index.column,
          str_cat("a second default index: ", label(index), " and ", label(*default_index),
                  " (line ", default_index->line, ") are both the default; at most one index "
                  "may be the default (`default = true`, or `index-url`)"));
    }
    default_index = &index;
  }
  for (const IndexConfig& index : declared) {
    if (!index.is_default) config.indexes.push_back(index);
  }
  if (default_index != nullptr) config.indexes.push_back(*default_index);
  return {};
}

}  // namespace

// `[[tool.wvlock.index]]`, `index-url`, `extra-index-url` -> config.indexes in asking order.
Result<void> read_indexes(const Reader& reader, const toml::table& wvlock, ProjectConfig& config) {
  std::vector<IndexConfig> declared;  // the tables, then the shorthands, as read
  if (const toml::node* list_node = wvlock.get("index")) {
    const toml::array* list = list_node->as_array();
    if (list == nullptr) {
      return reader.error(list_node->source(),
                          str_cat("`", reader.key("index"), "` must be an array of tables `[[",
                                  reader.key("index"), "]]`"));
    }
    for (std::size_t i = 0; i < list->size(); ++i) {
      WV_ASSIGN_OR_RETURN(IndexConfig index, read_index(reader, *list->get(i), i));
      declared.push_back(std::move(index));
    }
  }
  if (const toml::node* url_node = wvlock.get("index-url")) {
    WV_ASSIGN_OR_RETURN(std::string url, shorthand_url(reader, *url_node, reader.key("index-url")));
    config.index_url = url;
    IndexConfig index = positioned_index("index-url", std::move(url), *url_node);
    index.is_default = true;
    declared.push_back(std::move(index));
  }
  if (const toml::node* urls_node = wvlock.get("extra-index-url")) {
    std::vector<const toml::node*> items;
    if (const toml::array* array = urls_node->as_array()) {
      for (const toml::node& item : *array) items.push_back(&item);
    } else if (urls_node->is_string()) {
      items.push_back(urls_node);
    } else {
      return reader.error(urls_node->source(),
                          str_cat("`", reader.key("extra-index-url"),
                                  "` must be a string or an array of strings"));
    }
    for (std::size_t i = 0; i < items.size(); ++i) {
      WV_ASSIGN_OR_RETURN(std::string url,
                          shorthand_url(reader, *items[i], reader.key("extra-index-url")));
      config.extra_index_urls.push_back(url);
      std::string name = i == 0 ? std::string("extra-index-url")
                                : str_cat("extra-index-url-", i + 1);
      declared.push_back(positioned_index(std::move(name), std::move(url), *items[i]));
    }
  }

  return add_indexes_in_order(reader, declared, config);
}

// `index-strategy`.
Result<void> read_index_strategy(const Reader& reader, const toml::table& wvlock,
                                 ProjectConfig& config) {
  if (const toml::node* strategy_node = wvlock.get("index-strategy")) {
    WV_ASSIGN_OR_RETURN(std::string strategy,
                        reader.string(*strategy_node, reader.key("index-strategy")));
    if (!contains(kIndexStrategies, strategy)) {
      return reader.error(strategy_node->source(),
                          str_cat("invalid `index-strategy` ", in_backticks(strategy),
                                  ": expected one of ", quoted_list(kIndexStrategies)));
    }
    config.index_best_match = strategy == "unsafe-best-match";
  }
  return {};
}

}  // namespace wv::targets::project_reader
