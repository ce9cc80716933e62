// differential_fuzz: compares wv::pkg (PEP 440 versions, ordering, specifier sets; PEP 508
// markers and requirements) with Python's packaging 26.4 on generated inputs. One long-lived
// `/usr/bin/python3 differential/oracle.py PACKAGING_DIR` answers batches of cases over pipes;
// every disagreement is classified (a documented deliberate difference, or unexplained) and
// written as a case-file line. See docs/differential.md.
//
// Usage: differential_fuzz [--seed N] [--cases N] [--seconds S] [--out DIR] [--batch N]
//                          [--python PATH] [--oracle PATH] [--packaging DIR]
//        differential_fuzz --reclassify KIND FILE   (re-judge saved case lines, see below)
// Exit: 0 no unexplained disagreement, 1 some, 2 usage or oracle failure (also: the oracle
// imported a packaging other than 26.x), 77 the oracle is unavailable (no /usr/bin/python3, or
// no packaging 26.4 beside the checkout): the ctest entry reports a skip.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "src/base/hex.h"
#include "src/base/str.h"
#include "differential/answers.h"
#include "differential/generator.h"
#include "src/pkg/version.h"

extern char** environ;

namespace wv::differential {
namespace {

constexpr int kExitSkip = 77;

std::string hex_field(std::string_view text) { return hex_encode(text); }

// The Python worker: one process for the whole run, batches over two pipes.
class Oracle {
 public:
  Oracle(const std::string& python, const std::string& script, const std::string& packaging) {
    int to_child[2], from_child[2];
    if (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(from_child, O_CLOEXEC) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child[0], 0);
    posix_spawn_file_actions_adddup2(&actions, from_child[1], 1);
    std::vector<std::string> arguments = {python, script, packaging};
    std::vector<char*> argv;
    for (std::string& argument : arguments) argv.push_back(argument.data());
    argv.push_back(nullptr);
    if (::posix_spawn(&pid_, python.c_str(), &actions, nullptr, argv.data(), environ) != 0) {
      pid_ = -1;
    }
    posix_spawn_file_actions_destroy(&actions);
    ::close(to_child[0]);
    ::close(from_child[1]);
    input_ = to_child[1];
    output_ = ::fdopen(from_child[0], "r");
  }
  ~Oracle() {
    if (input_ >= 0) ::close(input_);
    if (output_ != nullptr) std::fclose(output_);
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }
  bool running() const { return pid_ > 0 && output_ != nullptr; }

  // Sends the requests (one per line), then reads one answer line each.
  std::optional<std::vector<std::string>> ask(const std::vector<std::string>& requests) {
    std::string text;
    for (const std::string& request : requests) {
      text += request;
      text.push_back('\n');
    }
    text += "END\n";
    std::size_t sent = 0;
    while (sent < text.size()) {
      ssize_t n = ::write(input_, text.data() + sent, text.size() - sent);
      if (n <= 0) return std::nullopt;
      sent += static_cast<std::size_t>(n);
    }
    std::vector<std::string> answers;
    char* line = nullptr;
    std::size_t capacity = 0;
    while (answers.size() < requests.size()) {
      ssize_t length = ::getline(&line, &capacity, output_);
      if (length <= 0) break;
      std::string_view view(line, static_cast<std::size_t>(length));
      if (!view.empty() && view.back() == '\n') view.remove_suffix(1);
      answers.emplace_back(view);
    }
    std::free(line);
    if (answers.size() != requests.size()) return std::nullopt;
    return answers;
  }

 private:
  pid_t pid_ = -1;
  int input_ = -1;
  FILE* output_ = nullptr;
};

std::optional<Fields> decode_answer(std::string_view line) {
  Fields fields;
  for (std::string_view piece : split(line, '\t')) {
    std::optional<std::string> text = hex_decode(piece);
    if (!text) return std::nullopt;
    fields.push_back(std::move(*text));
  }
  return fields;
}

struct Request {
  Kind kind = Kind::kVersion;
  std::vector<std::string> texts;  // version / set+versions / marker / requirement / order list
  std::vector<std::pair<std::size_t, std::string>> evaluations;  // marker: environment, extra
};

struct Tally {
  std::uint64_t cases = 0;
  std::uint64_t comparisons = 0;
  std::map<std::string, std::uint64_t> explained;  // deliberate difference class -> count
  std::map<std::string, std::uint64_t> bugs;       // known wv::pkg bug (`bug:` verdict) -> count
  std::uint64_t unexplained = 0;
};

struct Options {
  std::uint64_t seed = 1;
  std::uint64_t cases = 0;
  double seconds = 0;
  std::string out;
  std::size_t batch = 400;
  std::string python = "/usr/bin/python3";
  std::string oracle = WV_ORACLE_SCRIPT;
  std::string packaging;  // the directory holding packaging/; default_packaging_dir()
};

// The packaging 26.4 reference, found as the conformance tests find their data
// (tests/support/conformance.cc): beside $WVLOCK_CONFORMANCE_DIR when it is set, else beside
// the checkout (../shared/oracles/packaging-26.4, fixed at configure time).
std::string default_packaging_dir() {
  const char* conformance = std::getenv("WVLOCK_CONFORMANCE_DIR");
  if (conformance == nullptr || *conformance == 0) return WV_DEFAULT_PACKAGING_DIR;
  std::filesystem::path dir(conformance);
  if (!dir.has_filename()) dir = dir.parent_path();  // a trailing slash
  return (dir.parent_path() / "oracles" / "packaging-26.4").string();
}

class Campaign {
 public:
  explicit Campaign(const Options& options) : options_(options), generator_(options.seed) {}

  int run(Oracle& oracle);

 private:
  std::string serialize(const Request& request) const;
  void compare(const Request& request, const Fields& theirs);
  void record(Kind kind, std::vector<std::string> inputs, const std::string& ours,
              const std::string& packaging);
  Request next();
  void write_findings() const;

  Options options_;
  Generator generator_;
  std::vector<pkg::MarkerEnvironment> environments_;
  std::vector<std::unique_ptr<pkg::PreparedEnvironment>> prepared_;
  std::map<Kind, Tally> tallies_;
  std::map<Kind, std::vector<std::string>> findings_;  // case-file lines
  std::set<std::string> seen_;                          // lines already kept
  std::map<std::pair<Kind, std::string>, int> kept_per_class_;
  std::uint64_t shown_ = 0;
};

std::string Campaign::serialize(const Request& request) const {
  static constexpr char kLetters[] = {'V', 'O', 'S', 'M', 'R', 'I', 'N'};
  std::string line(1, kLetters[static_cast<int>(request.kind)]);
  for (const std::string& text : request.texts) {
    line.push_back('\t');
    line += hex_field(text);
  }
  for (const auto& [environment, extra] : request.evaluations) {
    line.push_back('\t');
    line += std::to_string(environment) + ":" + hex_field(extra);
  }
  return line;
}

Request Campaign::next() {
  static constexpr Kind kMix[] = {Kind::kVersion,      Kind::kVersion,      Kind::kVersion,
                                  Kind::kOrder,        Kind::kSpecifier,    Kind::kSpecifier,
                                  Kind::kSpecifier,    Kind::kMarker,       Kind::kMarker,
                                  Kind::kMarker,       Kind::kRequirement,  Kind::kRequirement,
                                  Kind::kIntersection, Kind::kIntersection, Kind::kName};
  Request request;
  request.kind = kMix[generator_.draw(std::size(kMix))];
  switch (request.kind) {
    case Kind::kVersion: request.texts = {generator_.version()}; break;
    case Kind::kOrder: request.texts = generator_.version_list(); break;
    case Kind::kSpecifier: {
      std::vector<std::string> versions;
      request.texts = {generator_.specifier_set(versions)};
      for (std::string& version : versions) {
        // Both sides must be able to parse the versions a set is matched against.
        if (pkg::is_valid_version(version)) request.texts.push_back(std::move(version));
      }
      break;
    }
    case Kind::kMarker: {
      request.texts = {generator_.marker()};
      for (int i = 0; i < 6; ++i) {
        request.evaluations.emplace_back(generator_.draw(environments_.size()),
                                         generator_.extra());
      }
      break;
    }
    case Kind::kRequirement: request.texts = {generator_.requirement()}; break;
    case Kind::kIntersection: {
      std::vector<std::string> versions, more;
      request.texts = {generator_.specifier_set(versions), generator_.specifier_set(more)};
      versions.insert(versions.end(), more.begin(), more.end());
      for (std::string& version : versions) {
        if (pkg::is_valid_version(version)) request.texts.push_back(std::move(version));
      }
      break;
    }
    case Kind::kName: request.texts = {generator_.project_name()}; break;
  }
  return request;
}

std::string class_of(const std::string& verdict) {
  // "spec: big-number: ..." -> "big-number"
  std::size_t start = verdict.find(": ");
  if (start == std::string::npos) return verdict;
  std::size_t end = verdict.find(':', start + 2);
  return verdict.substr(start + 2, end == std::string::npos ? std::string::npos : end - start - 2);
}

void Campaign::record(Kind kind, std::vector<std::string> inputs, const std::string& ours,
                      const std::string& packaging) {
  std::optional<std::string> verdict = explain(kind, inputs, ours, packaging);
  Tally& tally = tallies_[kind];
  std::string name = verdict ? class_of(*verdict) : "UNEXPLAINED";
  int limit = verdict ? 5 : 200;  // examples kept per class
  if (verdict) {
    ++(verdict->starts_with("bug:") ? tally.bugs : tally.explained)[name];
  } else {
    ++tally.unexplained;
    if (shown_++ < 10) {
      std::cerr << "unexplained " << kind_name(kind) << ": "
                << escape(join(inputs, " \xe2\x94\x82 ")) << "\n  ours:      " << escape(ours)
                << "\n  packaging: " << escape(packaging) << "\n";
    }
  }
  std::string line = case_line(inputs, ours, packaging, verdict.value_or("UNEXPLAINED"));
  int& kept = kept_per_class_[{kind, name}];
  if (kept < limit && seen_.insert(line).second) {
    ++kept;
    findings_[kind].push_back(std::move(line));
  }
}

// Our "unsupported" (a number above 2^64-1 met before the grammar failed) and packaging's
// "invalid" are the same answer: both refuse the input.
Fields refusal(Fields ours, const Fields& theirs) {
  if (ours.size() == 1 && ours[0] == "unsupported" && theirs.size() == 1 &&
      theirs[0] == "invalid") {
    ours[0] = "invalid";
  }
  return ours;
}

void Campaign::compare(const Request& request, const Fields& theirs) {
  Tally& tally = tallies_[request.kind];
  ++tally.cases;
  if (!theirs.empty() && theirs[0] == "crash") {
    std::vector<std::string> inputs(input_columns(request.kind));  // the case's first text
    inputs[0] = request.texts[0];
    record(request.kind, std::move(inputs), "(no crash)", join_answer(theirs));
    return;
  }
  switch (request.kind) {
    case Kind::kVersion: {
      ++tally.comparisons;
      Fields ours = refusal(our_version(request.texts[0]), theirs);
      if (ours != theirs) record(Kind::kVersion, {request.texts[0]}, join_answer(ours), join_answer(theirs));
      break;
    }
    case Kind::kRequirement: {
      ++tally.comparisons;
      Fields ours = refusal(our_requirement(request.texts[0]), theirs);
      if (ours != theirs) {
        record(Kind::kRequirement, {request.texts[0]}, join_answer(ours), join_answer(theirs));
      }
      break;
    }
    case Kind::kOrder: {
      const std::vector<std::string>& texts = request.texts;
      std::vector<std::optional<pkg::Version>> versions;
      for (const std::string& text : texts) {
        Result<pkg::Version> version = pkg::parse_version(text);
        versions.push_back(version ? std::optional<pkg::Version>(*version) : std::nullopt);
      }
      if (theirs.size() != texts.size()) {
        record(Kind::kOrder, {texts[0], texts[0]}, "(answer per version)", join_answer(theirs));
        break;
      }
      for (std::size_t i = 0; i < texts.size(); ++i) {
        for (std::size_t j = i + 1; j < texts.size(); ++j) {
          ++tally.comparisons;
          std::string ours = "invalid";
          if (versions[i] && versions[j]) {
            auto order = *versions[i] <=> *versions[j];
            ours = order < 0 ? "<" : (order > 0 ? ">" : "=");
            // Internal consistency: the key shortcut, the full comparison and the hash agree.
            auto full = pkg::Version::compare_full(*versions[i], *versions[j]);
            bool hash_ok = order != 0 || versions[i]->hash() == versions[j]->hash();
            if (full != order || !hash_ok) {
              record(Kind::kOrder, {texts[i], texts[j]}, ours + " (internal: compare_full or hash differs)", ours);
            }
          }
          std::string packaging = reduce_order(theirs[i], theirs[j]);
          if (ours != packaging) record(Kind::kOrder, {texts[i], texts[j]}, ours, packaging);
        }
      }
      break;
    }
    case Kind::kSpecifier:
    case Kind::kIntersection: {
      // One set, or two combined with &, then the versions matched against it.
      const std::size_t sets = request.kind == Kind::kIntersection ? 2 : 1;
      const std::vector<std::string> set_texts(request.texts.begin(), request.texts.begin() + sets);
      std::span<const std::string> versions(request.texts.data() + sets, request.texts.size() - sets);
      auto answer = [&](std::span<const std::string> some) {
        return sets == 2 ? our_intersection(set_texts[0], set_texts[1], some)
                         : our_specifier(set_texts[0], some);
      };
      auto inputs_for = [&](const std::string& version, const char* mode) {
        std::vector<std::string> inputs = set_texts;
        inputs.push_back(version);
        inputs.push_back(mode);
        return inputs;
      };
      Fields ours = refusal(answer(versions), theirs);
      tally.comparisons += 1 + (theirs.size() > 1 ? 3 * versions.size() : 0);
      if (ours == theirs) break;
      const std::string first_version = versions.empty() ? "1.0" : versions[0];
      if (ours.size() != theirs.size() || ours.size() < 3 ||
          !std::equal(ours.begin(), ours.begin() + 3, theirs.begin())) {
        Fields single_ours = answer(std::span<const std::string>(&first_version, 1));
        record(request.kind, inputs_for(first_version, "None"), reduce_specifier(single_ours, 0, 0),
               versions.empty() ? join_answer(theirs) : reduce_specifier(theirs, 0, 0));
        break;
      }
      static constexpr const char* kModes[] = {"None", "True", "False"};
      for (std::size_t i = 0; i < versions.size(); ++i) {
        for (int mode = 0; mode < 3; ++mode) {
          if (ours[3 + i][mode] != theirs[3 + i][mode]) {
            record(request.kind, inputs_for(versions[i], kModes[mode]),
                   reduce_specifier(ours, i, mode), reduce_specifier(theirs, i, mode));
          }
        }
      }
      break;
    }
    case Kind::kName: {
      ++tally.comparisons;
      Fields ours = our_name(request.texts[0]);
      if (ours != theirs) record(Kind::kName, {request.texts[0]}, join_answer(ours), join_answer(theirs));
      break;
    }
    case Kind::kMarker: {
      std::vector<Evaluation> evaluations;
      for (const auto& [environment, extra] : request.evaluations) {
        evaluations.push_back({prepared_[environment].get(), extra});
      }
      Fields ours = refusal(our_marker(request.texts[0], evaluations), theirs);
      tally.comparisons += 1 + (theirs.size() > 1 ? evaluations.size() : 0);
      if (ours == theirs) break;
      auto inputs_for = [&](std::size_t k) {
        const auto& [environment, extra] = request.evaluations[k];
        return std::vector<std::string>{request.texts[0],
                                        join(environment_values(environments_[environment]), "|"),
                                        extra};
      };
      if (ours.size() != theirs.size() || ours.size() < 2 ||
          !std::equal(ours.begin(), ours.begin() + 2, theirs.begin())) {
        record(Kind::kMarker, inputs_for(0), reduce_marker(ours, 0), reduce_marker(theirs, 0));
        break;
      }
      for (std::size_t k = 0; k < evaluations.size(); ++k) {
        if (ours[2 + k] != theirs[2 + k]) {
          record(Kind::kMarker, inputs_for(k), reduce_marker(ours, k), reduce_marker(theirs, k));
        }
      }
      break;
    }
  }
}

void Campaign::write_findings() const {
  if (options_.out.empty()) return;
  std::error_code error;
  std::filesystem::create_directories(options_.out, error);
  for (Kind kind : kAllKinds) {
    auto found = findings_.find(kind);
    if (found == findings_.end()) continue;
    std::ofstream file(options_.out + "/" + std::string(kind_name(kind)) + ".txt");
    for (const std::string& line : found->second) file << line << "\n";
  }
}

// "name count, name count" for a tally's classes.
std::string counts(const std::map<std::string, std::uint64_t>& classes) {
  std::string out;
  for (const auto& [name, count] : classes) out += str_cat(out.empty() ? "" : ", ", name, " ", count);
  return out;
}

int Campaign::run(Oracle& oracle) {
  // Marker environments: a pool defined once in the worker.
  std::vector<std::string> definitions;
  for (int i = 0; i < 48; ++i) {
    environments_.push_back(generator_.environment());
    prepared_.push_back(std::make_unique<pkg::PreparedEnvironment>(environments_.back()));
    definitions.push_back("E\t" + std::to_string(i) + "\t" +
                          hex_field(join(environment_values(environments_.back()), "\x1f")));
  }
  if (!oracle.ask(definitions)) {
    std::cerr << "differential_fuzz: the oracle stopped answering\n";
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::uint64_t done = 0;
  double next_progress = 30;
  while (true) {
    if (options_.cases > 0 && done >= options_.cases) break;
    if (options_.seconds > 0 && elapsed() >= options_.seconds) break;
    std::size_t size = options_.batch;
    if (options_.cases > 0) size = std::min<std::uint64_t>(size, options_.cases - done);
    std::vector<Request> requests;
    std::vector<std::string> lines;
    for (std::size_t i = 0; i < size; ++i) {
      requests.push_back(next());
      lines.push_back(serialize(requests.back()));
    }
    std::optional<std::vector<std::string>> answers = oracle.ask(lines);
    if (!answers) {
      std::cerr << "differential_fuzz: the oracle stopped answering\n";
      return 2;
    }
    for (std::size_t i = 0; i < size; ++i) {
      std::optional<Fields> theirs = decode_answer((*answers)[i]);
      if (!theirs) {
        std::cerr << "differential_fuzz: malformed oracle answer\n";
        return 2;
      }
      compare(requests[i], *theirs);
    }
    done += size;
    if (elapsed() >= next_progress) {  // long campaigns say how far they are
      next_progress += 30;
      std::uint64_t unexplained = 0;
      for (const auto& [kind, tally] : tallies_) unexplained += tally.unexplained;
      std::fprintf(stderr, "differential: %llu cases after %.0f s, %llu unexplained\n",
                   static_cast<unsigned long long>(done), elapsed(),
                   static_cast<unsigned long long>(unexplained));
    }
  }
  const double seconds = elapsed();
  write_findings();
  std::uint64_t cases = 0, comparisons = 0, unexplained = 0, bugs = 0;
  for (const auto& [kind, tally] : tallies_) {
    cases += tally.cases;
    comparisons += tally.comparisons;
    unexplained += tally.unexplained;
    for (const auto& [name, count] : tally.bugs) bugs += count;
  }
  std::printf("differential: seed %llu, %llu cases, %llu comparisons in %.1f s "
              "(%.0f cases/s, %.0f comparisons/s)\n",
              static_cast<unsigned long long>(options_.seed),
              static_cast<unsigned long long>(cases),
              static_cast<unsigned long long>(comparisons), seconds,
              seconds > 0 ? double(cases) / seconds : 0.0,
              seconds > 0 ? double(comparisons) / seconds : 0.0);
  for (Kind kind : kAllKinds) {
    auto found = tallies_.find(kind);
    if (found == tallies_.end()) continue;
    const Tally& tally = found->second;
    const std::string explained = counts(tally.explained);
    std::printf("  %-12s %8llu cases %11llu comparisons, unexplained %llu, explained: %s%s%s\n",
                std::string(kind_name(kind)).c_str(),
                static_cast<unsigned long long>(tally.cases),
                static_cast<unsigned long long>(tally.comparisons),
                static_cast<unsigned long long>(tally.unexplained),
                explained.empty() ? "none" : explained.c_str(),
                tally.bugs.empty() ? "" : "; known bugs: ", counts(tally.bugs).c_str());
  }
  // Known bugs do not fail the run (each is reported and pinned by a unit test in tests/pkg
  // that its fix must change), but they are never counted as deliberate.
  std::printf("differential: %llu disagreements are known wv::pkg bugs (bug: verdicts)\n",
              static_cast<unsigned long long>(bugs));
  std::printf("differential: %llu unexplained disagreements\n",
              static_cast<unsigned long long>(unexplained));
  return unexplained == 0 ? 0 : 1;
}

// --reclassify KIND FILE: recomputes our answer and the verdict of every case line of FILE
// (e.g. differential-found/marker.txt after a fix) and prints the updated lines; a case on
// which we now agree with packaging gets the verdict "AGREES".
int reclassify(std::string_view kind_text, const std::string& path) {
  std::optional<Kind> kind;
  for (Kind candidate : kAllKinds) {
    if (kind_name(candidate) == kind_text) kind = candidate;
  }
  std::ifstream file(path);
  if (!kind || !file) {
    std::cerr << "differential_fuzz: cannot reclassify " << path << " as " << kind_text << "\n";
    return 2;
  }
  std::string line;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') {
      std::cout << line << "\n";
      continue;
    }
    std::vector<std::string> columns;
    for (std::string_view column : split(line, '\t')) columns.push_back(unescape(column).value_or(""));
    const std::size_t inputs = input_columns(*kind);
    if (columns.size() != inputs + 3) {
      std::cerr << "differential_fuzz: skipped a line with " << columns.size() << " columns\n";
      continue;
    }
    std::span<const std::string> input(columns.data(), inputs);
    const std::string ours = answer_case(*kind, input);
    const std::string& packaging = columns[inputs + 1];
    std::string verdict = ours == packaging ? "AGREES"
                                            : explain(*kind, input, ours, packaging).value_or("UNEXPLAINED");
    std::cout << case_line(input, ours, packaging, verdict) << "\n";
  }
  return 0;
}

// Before starting the oracle: its interpreter and the packaging it must import exist.
int start_check(const Options& options) {
  if (::access(options.python.c_str(), X_OK) != 0) {
    std::printf("differential: SKIPPED: %s is not available (the oracle runs packaging 26.4 "
                "under it)\n", options.python.c_str());
    return kExitSkip;
  }
  std::error_code error;
  if (!std::filesystem::is_regular_file(options.packaging + "/packaging/__init__.py", error)) {
    std::printf("differential: SKIPPED: the packaging 26.4 oracle is not at %s (expected "
                "../shared/oracles/packaging-26.4 beside the checkout; set "
                "WVLOCK_CONFORMANCE_DIR or --packaging DIR)\n", options.packaging.c_str());
    return kExitSkip;
  }
  return 0;
}

// The hello exchange: the oracle names the packaging it imported. A missing one is a skip; any
// version but 26.x is refused, since its answers differ from the semantics wv::pkg follows.
int check_hello(Oracle& oracle, const Options& options) {
  std::optional<std::vector<std::string>> hello = oracle.ask({"H"});
  constexpr std::string_view kRefusal = "NOPACKAGING ";
  if (!hello || (*hello)[0].starts_with(kRefusal)) {
    const std::string why = hello ? (*hello)[0].substr(kRefusal.size()) : "no answer";
    std::printf("differential: SKIPPED: the oracle could not import packaging under %s: %s\n",
                options.python.c_str(), why.c_str());
    return kExitSkip;
  }
  std::optional<Fields> answer = decode_answer((*hello)[0]);
  if (!answer || answer->size() != 3 || (*answer)[0] != "ok") {
    std::printf("differential: refused: the oracle imported packaging %s from %s; the "
                "reference is packaging 26.x\n",
                answer && answer->size() > 1 ? (*answer)[1].c_str() : "?",
                answer && answer->size() > 2 ? (*answer)[2].c_str() : "?");
    return 2;
  }
  std::printf("differential: oracle packaging %s from %s under %s\n", (*answer)[1].c_str(),
              (*answer)[2].c_str(), options.python.c_str());
  return 0;
}

int usage() {
  std::cerr << "usage: differential_fuzz [--seed N] [--cases N] [--seconds S] [--out DIR] "
               "[--batch N] [--python PATH] [--oracle PATH] [--packaging DIR]\n";
  return 2;
}

}  // namespace
}  // namespace wv::differential

int main(int argc, char** argv) {
  using namespace wv::differential;
  Options options;
  if (argc == 4 && std::string_view(argv[1]) == "--reclassify") return reclassify(argv[2], argv[3]);
  for (int i = 1; i < argc; ++i) {
    std::string_view argument = argv[i];
    if (i + 1 >= argc) return usage();
    std::string value = argv[++i];
    if (argument == "--seed") {
      options.seed = std::strtoull(value.c_str(), nullptr, 10);
    } else if (argument == "--cases") {
      options.cases = std::strtoull(value.c_str(), nullptr, 10);
    } else if (argument == "--seconds") {
      options.seconds = std::strtod(value.c_str(), nullptr);
    } else if (argument == "--out") {
      options.out = value;
    } else if (argument == "--batch") {
      options.batch = std::max<std::size_t>(1, std::strtoull(value.c_str(), nullptr, 10));
    } else if (argument == "--python") {
      options.python = value;
    } else if (argument == "--oracle") {
      options.oracle = value;
    } else if (argument == "--packaging") {
      options.packaging = value;
    } else {
      return usage();
    }
  }
  if (options.cases == 0 && options.seconds <= 0) options.cases = 10000;
  if (options.packaging.empty()) options.packaging = default_packaging_dir();
  if (int status = start_check(options); status != 0) return status;
  ::signal(SIGPIPE, SIG_IGN);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // figures appear as they are printed
  Oracle oracle(options.python, options.oracle, options.packaging);
  if (!oracle.running()) {
    std::printf("differential: SKIPPED: could not start %s %s\n", options.python.c_str(),
                options.oracle.c_str());
    return kExitSkip;
  }
  if (int status = check_hello(oracle, options); status != 0) return status;
  Campaign campaign(options);
  return campaign.run(oracle);
}
