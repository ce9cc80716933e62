// `wvlock tree` and `wvlock why PKG`: a target's graph from the lockfile, whole or as the
// shortest chain to one package.
#include <cstdio>
#include <functional>
#include <map>
#include <set>

#include "base/str.h"
#include "cli/commands.h"
#include "cli/lock_view.h"
#include "pkg/name.h"

namespace wv::cli {

int run_tree(const GlobalOptions& options, Arguments& arguments) {
  auto target_name = arguments.extract_value("--target");
  if (!target_name) return fail_reading_lock(target_name.error());
  if (auto done = arguments.expect_done(); !done) return fail_reading_lock(done.error());
  RealFileSystem file_system;
  auto inputs = read_lock_inputs(options, file_system);
  if (!inputs) return fail_reading_lock(inputs.error());
  auto targets = chosen_targets(inputs->lockfile, *target_name);
  if (!targets) return fail_reading_lock(targets.error());
  for (const lock::LockedTarget* target : *targets) {
    std::printf("%s\n", target->name.c_str());
    std::set<std::string> shown;
    std::function<void(const std::string&, const std::string&, int)> print =
        [&](const std::string& text, const std::string& label, int depth) {
          bool again = !shown.insert(text).second;
          std::printf("%s%s%s%s\n", std::string(std::size_t(depth) * 2, ' ').c_str(),
                      text.c_str(), label.empty() ? "" : (" (" + label + ")").c_str(),
                      again ? " (*)" : "");
          if (again) return;
          for (const std::string& child : children(inputs->lockfile, target->name, parse_edge(text))) {
            print(child, "", depth + 1);
          }
        };
    for (const auto& [root, label] : labelled_roots(*target)) print(root, label, 1);
  }
  return kExitOk;
}

int run_why(const GlobalOptions& options, Arguments& arguments) {
  auto target_name = arguments.extract_value("--target");
  if (!target_name) return fail_reading_lock(target_name.error());
  auto wanted = arguments.take_positional();
  if (!wanted) {
    return fail_reading_lock(make_error(ErrorCode::kInvalidInput, "usage: wvlock why PACKAGE [--target NAME]"));
  }
  if (auto done = arguments.expect_done(); !done) return fail_reading_lock(done.error());
  std::string name = pkg::normalize_name(*wanted);
  RealFileSystem file_system;
  auto inputs = read_lock_inputs(options, file_system);
  if (!inputs) return fail_reading_lock(inputs.error());
  auto targets = chosen_targets(inputs->lockfile, *target_name);
  if (!targets) return fail_reading_lock(targets.error());
  bool found_any = false;
  for (const lock::LockedTarget* target : *targets) {
    // Breadth-first from the roots: the shortest chain that reaches the package.
    std::map<std::string, std::string> parent;
    std::vector<std::string> queue;
    for (const auto& [root, label] : labelled_roots(*target)) {
      if (parent.emplace(root, label.empty() ? "the project" : "the project's " + label).second) {
        queue.push_back(root);
      }
    }
    std::optional<std::string> hit;
    for (std::size_t i = 0; i < queue.size() && !hit; ++i) {
      if (parse_edge(queue[i]).name == name) {
        hit = queue[i];
        break;
      }
      for (const std::string& child : children(inputs->lockfile, target->name, parse_edge(queue[i]))) {
        if (parent.emplace(child, queue[i]).second) queue.push_back(child);
      }
    }
    if (!hit) {
      std::printf("%s: %s is not needed\n", target->name.c_str(), name.c_str());
      continue;
    }
    found_any = true;
    std::vector<std::string> chain{*hit};
    while (parent.count(chain.back()) && parent.at(chain.back()).rfind("the project", 0) != 0) {
      chain.push_back(parent.at(chain.back()));
    }
    std::string line = parent.at(chain.back());
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) line += " -> " + *it;
    std::printf("%s: %s\n", target->name.c_str(), line.c_str());
  }
  return found_any ? kExitOk : kExitFailure;
}

}  // namespace wv::cli
