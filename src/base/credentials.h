// Credentials never enter a lockfile or a message (DESIGN.md §2.1): URLs are stored bare and
// printed masked. Pure string functions; every sink (the lock writer's URL mapping, the input
// hash, error and log output) calls them. Cheap to include.
#pragma once

#include <string>
#include <string_view>

namespace wv {

/// `text` with the user-info of every `scheme://user:password@host` in it replaced by `****`
/// (`https://****@host/...`), for messages and logs.
std::string redact_credentials(std::string_view text);

/// `url` without its user-info (`https://user:pw@host/x` -> `https://host/x`), for what is
/// stored: the lockfile's URLs, the input hash.
std::string strip_credentials(std::string_view url);

}  // namespace wv
