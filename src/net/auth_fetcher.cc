#include "src/net/auth_fetcher.h"

#include <utility>

#include "src/base/credentials.h"
#include "src/base/log.h"
#include "src/base/url.h"
#include "src/base/str.h"
#include "src/base/url.h"

namespace wv::net {

namespace {

bool is_http(const UrlParts& parts) { return parts.scheme == "http" || parts.scheme == "https"; }

// User info is percent-encoded in a URL; curl decodes it before sending Basic auth.
std::string encode_user_info(std::string_view text) { return percent_encode(text); }

// `url` with `user_info` ("user" or "user:password", encoded) in place of its own.
std::string with_user_info(std::string_view url, std::string_view user_info) {
  std::string bare = strip_credentials(url);
  std::size_t authority = bare.find("://");
  if (authority == std::string::npos) return bare;
  authority += 3;
  return str_cat(bare.substr(0, authority), user_info, "@", bare.substr(authority));
}

std::string user_info_of(const std::optional<std::string>& username,
                         const std::optional<std::string>& password) {
  std::string info = encode_user_info(username.value_or(""));
  if (password) info += ":" + encode_user_info(*password);
  return info;
}

// A URL's user info ("user" or "user:password", percent-encoded), decoded.
struct UserInfo {
  std::string user;
  std::optional<std::string> password;
};

UserInfo split_user_info(const std::string& info) {
  std::size_t colon = info.find(':');
  std::string user = info.substr(0, colon);
  UserInfo out{percent_decode(user).value_or(user), std::nullopt};
  if (colon != std::string::npos) {
    std::string password = info.substr(colon + 1);
    out.password = percent_decode(password).value_or(password);
  }
  return out;
}

// The path an index's URLs start with: its own path up to and with its last '/', so
// `/simple` and `/simple/` both cover `/simple/torch/`.
std::string path_prefix(std::string path) {
  if (std::size_t query = path.find_first_of("?#"); query != std::string::npos) path.resize(query);
  if (path.empty() || path.back() != '/') path += '/';
  return path;
}

// keyring's other service name for a URL: its host, with the port when the URL names one (uv
// and pip ask `host:port`, so `localhost:8000` is not `localhost`).
std::string keyring_host(const UrlParts& parts) {
  return parts.port ? str_cat(parts.host, ":", *parts.port) : parts.host;
}

}  // namespace

std::string index_variable(std::string_view index_name, std::string_view suffix) {
  std::string name;
  for (char c : index_name) {
    if (!is_ascii_alnum(c)) c = '_';
    name += (c >= 'a' && c <= 'z') ? char(c - 'a' + 'A') : c;
  }
  return str_cat("WVLOCK_INDEX_", name, "_", suffix);
}

/// One configured index, its URL split once and its credentials read once.
struct AuthFetcher::Index {
  std::string name;
  std::string shown_url;  ///< without user info
  UrlParts parts;
  std::string prefix;
  std::optional<std::string> username, password;
  std::string source;  ///< where they came from, for messages ("" when none)
  std::string username_variable, password_variable;
};

/// What is sent for one request, and what a 401 then means.
struct AuthFetcher::Plan {
  FetchRequest sent;
  const Index* index = nullptr;
  std::optional<UrlParts> parts;  ///< nullopt: not an http(s) URL, passed through untouched
  std::optional<std::string> username;
  bool has_password = false;   ///< a password went with the request
  bool password_from_url = false;
  bool injected = false;       ///< the user info was added here
  std::string source;          ///< where the credentials came from ("" when none)
};

AuthFetcher::AuthFetcher(Fetcher& upstream, AuthOptions options)
    : upstream_(upstream), options_(std::move(options)) {
  auto read = [this](const std::string& name) -> std::optional<std::string> {
    if (!options_.getenv) return std::nullopt;
    std::optional<std::string> value = options_.getenv(name);
    if (value && value->empty()) return std::nullopt;  // set but empty reads as unset
    return value;
  };
  for (const AuthIndex& configured : options_.indexes) {
    Result<UrlParts> parts = split_url(configured.url);
    if (!parts || !is_http(*parts)) continue;  // local folders need no credentials
    Index index;
    index.name = configured.name;
    index.shown_url = strip_credentials(configured.url);
    index.prefix = path_prefix(parts->path);
    index.username_variable = index_variable(configured.name, "USERNAME");
    index.password_variable = index_variable(configured.name, "PASSWORD");
    if (!parts->userinfo.empty()) {
      UserInfo info = split_user_info(parts->userinfo);
      index.username = std::move(info.user);
      index.password = std::move(info.password);
      index.source = "the index URL";
      if (!index.password) {
        // A user name in the URL, its password from the environment (uv pairs them too).
        index.password = read(index.password_variable);
        if (index.password) index.source = str_cat("the index URL and ", index.password_variable);
      }
    } else {
      index.username = read(index.username_variable);
      index.password = read(index.password_variable);
      if (index.username || index.password) {
        index.source = index.password ? str_cat(index.username_variable, " and ", index.password_variable)
                                      : index.username_variable;
      }
    }
    parts->userinfo.clear();
    index.parts = std::move(*parts);
    indexes_.push_back(std::move(index));
  }
}

AuthFetcher::~AuthFetcher() = default;

AuthFetcher::Plan AuthFetcher::plan(const FetchRequest& request) {
  Plan plan;
  plan.sent = request;
  Result<UrlParts> parts = split_url(request.url);
  if (!parts || !is_http(*parts)) return plan;
  // The index whose URL is the longest prefix of this one; else the first of its host.
  const Index* host_match = nullptr;
  std::size_t longest = 0;
  for (const Index& index : indexes_) {
    if (index.parts.scheme != parts->scheme || index.parts.host != parts->host ||
        effective_port(index.parts) != effective_port(*parts)) {
      continue;
    }
    if (host_match == nullptr || (!host_match->username && !host_match->password &&
                                  (index.username || index.password))) {
      host_match = &index;  // the first of the host, preferring one that has credentials
    }
    const std::string path = path_prefix(parts->path);
    if (path.compare(0, index.prefix.size(), index.prefix) == 0 && index.prefix.size() > longest) {
      plan.index = &index;
      longest = index.prefix.size();
    }
  }
  if (plan.index == nullptr) plan.index = host_match;

  if (!parts->userinfo.empty()) {  // the URL's own credentials win
    UserInfo info = split_user_info(parts->userinfo);
    plan.username = std::move(info.user);
    plan.has_password = plan.password_from_url = info.password.has_value();
    plan.source = "the URL";
    if (!plan.has_password && plan.index && plan.index->password &&
        plan.index->username == plan.username) {
      plan.sent.url = with_user_info(request.url, user_info_of(plan.username, plan.index->password));
      plan.has_password = plan.injected = true;
      plan.source = plan.index->source;
    }
  } else if (plan.index && (plan.index->username || plan.index->password)) {
    plan.username = plan.index->username;
    plan.has_password = plan.index->password.has_value();
    plan.source = plan.index->source;
    plan.sent.url = with_user_info(request.url, user_info_of(plan.username, plan.index->password));
    plan.injected = true;
  }
  plan.parts = std::move(*parts);
  // A password the keyring gave earlier this run serves every later request it covers.
  if (options_.keyring && plan.username && !plan.has_password) {
    std::lock_guard<std::mutex> lock(keyring_mutex_);
    const std::string service = plan.index ? plan.index->shown_url : strip_credentials(request.url);
    auto found = keyring_answers_.find({service, *plan.username});
    if (found != keyring_answers_.end() && found->second) {
      plan.sent.url = with_user_info(request.url, user_info_of(plan.username, found->second));
      plan.has_password = plan.injected = true;
      plan.source = "the keyring";
    }
  }
  return plan;
}

std::optional<std::string> AuthFetcher::ask_keyring(const Plan& plan) {
  if (!options_.keyring || !plan.username || plan.username->empty() || plan.has_password) {
    return std::nullopt;
  }
  // uv's service names: the index URL for a request under an index (else the request URL),
  // then the host.
  const std::string service = plan.index ? plan.index->shown_url : strip_credentials(plan.sent.url);
  std::lock_guard<std::mutex> lock(keyring_mutex_);
  auto [it, asked_first] = keyring_answers_.try_emplace({service, *plan.username});
  if (!asked_first) return it->second;
  log_debug(str_cat("keyring: asking for ", *plan.username, " at ", in_backticks(service)));
  std::optional<std::string> password = options_.keyring(service, *plan.username);
  if (!password) {
    const std::string host = keyring_host(plan.index ? plan.index->parts : *plan.parts);
    log_debug(str_cat("keyring: asking for ", *plan.username, " at ", in_backticks(host)));
    password = options_.keyring(host, *plan.username);
  }
  it->second = password;
  return password;
}

Result<FetchResponse> AuthFetcher::finish(const Plan& plan, Result<FetchResponse> answer) const {
  if (!answer) {
    // A transport error names the URL sent; the caller knows it without the added user info.
    if (plan.injected) {
      Error error = std::move(answer).error();
      const std::string sent = redact_url(plan.sent.url);
      const std::string bare = strip_credentials(plan.sent.url);
      for (std::size_t at = error.message.find(sent); at != std::string::npos;
           at = error.message.find(sent, at + bare.size())) {
        error.message.replace(at, sent.size(), bare);
      }
      return error;
    }
    return answer;
  }
  // curl may report the URL it was given, user info and all: the caller sees its own.
  // Bare always: a URL the caller resolves links against, or a cache stores, carries no user
  // info (what the URL itself carried is added again by plan() from the index on each use).
  answer->effective_url = strip_credentials(answer->effective_url);
  if (answer->status != 401 && answer->status != 403) return answer;

  const bool refused = answer->status == 401;
  std::string message = str_cat("cannot fetch ", in_backticks(strip_credentials(plan.sent.url)),
                                ": the server answered HTTP ", answer->status,
                                refused ? " (unauthorized)" : " (forbidden)");
  const Index* index = plan.index;
  if (index) {
    message += str_cat(" for index ", in_backticks(index->name), " (",
                       in_backticks(index->shown_url), ")");
  }
  Error error = make_error(ErrorCode::kNetwork, std::move(message));
  if (!plan.source.empty()) {
    error.notes.push_back(str_cat("note: the request carried credentials from ", plan.source,
                                  refused ? ", and the server refused them"
                                          : ", and they give no access to it"));
  } else {
    std::vector<std::string> looked = {"the URL"};
    if (index) looked.push_back("the environment");
    if (options_.keyring) looked.push_back("the keyring");
    std::string last = looked.back();
    looked.pop_back();
    error.notes.push_back(str_cat(
        "note: the request carried no credentials from ",
        looked.empty() ? last : str_cat(join(looked, ", "), " or ", last),
        options_.netrc_file.empty() ? "" : " (curl adds those of the netrc file, if it has any)"));
  }
  std::vector<std::string> places;
  // Said without `scheme://user:password@`, which every printed message has masked.
  places.push_back(str_cat("user info in the ", index ? "index " : "",
                           "URL (`USER:PASSWORD@` before the host)"));
  if (index) {
    places.push_back(str_cat(index->username_variable, " and ", index->password_variable));
  }
  if (!options_.netrc_file.empty()) {
    places.push_back(str_cat("the netrc file ", in_backticks(options_.netrc_file),
                             " (NETRC names another)"));
  }
  places.push_back(options_.keyring
                       ? std::string("the keyring (`keyring get`, asked only when a username is "
                                     "known without a password)")
                       : std::string("the keyring, when turned on with `--keyring-provider "
                                     "subprocess` (it needs a username)"));
  error.notes.push_back(str_cat("hint: wvlock reads credentials", index ? " for this index" : "",
                                " from, in this order: ", join(places, "; ")));
  return error;
}

Result<FetchResponse> AuthFetcher::fetch(const FetchRequest& request) {
  std::vector<Result<FetchResponse>> results = fetch_all({request});
  return std::move(results.front());
}

std::vector<Result<FetchResponse>> AuthFetcher::fetch_all(const std::vector<FetchRequest>& requests) {
  std::vector<Plan> plans;
  std::vector<FetchRequest> sent;
  plans.reserve(requests.size());
  sent.reserve(requests.size());
  for (const FetchRequest& request : requests) {
    plans.push_back(plan(request));
    sent.push_back(plans.back().sent);
  }
  std::vector<Result<FetchResponse>> answers = upstream_.fetch_all(sent);

  // A 401/403 to a request with a username and no password: the keyring, then once more.
  std::vector<std::size_t> again;
  std::vector<FetchRequest> retries;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (!answers[i] || (answers[i]->status != 401 && answers[i]->status != 403)) continue;
    std::optional<std::string> password = ask_keyring(plans[i]);
    if (!password) continue;
    Plan& retry = plans[i];
    retry.sent.url = with_user_info(requests[i].url, user_info_of(retry.username, password));
    retry.has_password = retry.injected = true;
    retry.source = "the keyring";
    again.push_back(i);
    retries.push_back(retry.sent);
  }
  if (!retries.empty()) {
    std::vector<Result<FetchResponse>> second = upstream_.fetch_all(retries);
    for (std::size_t k = 0; k < again.size(); ++k) answers[again[k]] = std::move(second[k]);
  }

  std::vector<Result<FetchResponse>> results;
  results.reserve(answers.size());
  for (std::size_t i = 0; i < answers.size(); ++i) {
    results.push_back(finish(plans[i], std::move(answers[i])));
  }
  return results;
}

}  // namespace wv::net
