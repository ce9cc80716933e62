// Credentials never enter a lockfile or a message (DESIGN.md §2.1): URLs are stored bare and
// printed masked. One rule finds user-info, for masking and stripping alike; every write to
// stdout and stderr applies it (base/output.h), as do the writers of stored URLs (the lock
// writer's URL mapping, the input hash, the cache's sidecars). Cheap to include.
#pragma once

#include <string>
#include <string_view>

namespace wv {

/// `text` with the user-info of every URL in it replaced by `****` (`https://****@host/...`),
/// for messages and logs. The rule: after each `scheme://`, the authority is the run of RFC
/// 3986 authority characters (unreserved, `%`, sub-delims `!$&'()*+,;=`, `:`, `@`, `[`, `]`);
/// if it holds an `@`, all before the last `@` is user-info. Idempotent.
std::string redact_credentials(std::string_view text);

/// `url` without its user-info (`https://user:pw@host/x` -> `https://host/x`), by the same
/// rule, for what is stored: the lockfile's URLs, the input hash, cache metadata.
std::string strip_credentials(std::string_view url);

/// True when `url` holds user-info the rule above would mask (an ssh account name alone does
/// not count: it is an address, not a secret).
bool carries_credentials(std::string_view url);

}  // namespace wv
