// `wvlock tree` and `wvlock why PKG`: a target's graph from the lockfile, whole or as the
// shortest chain to one package.
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "src/base/json_writer.h"
#include "src/base/output.h"
#include "src/base/str.h"
#include "src/cli/commands.h"
#include "src/cli/lock_view.h"
#include "src/cli/workspace.h"
#include "src/pkg/name.h"

namespace wv::cli {

namespace {

// An edge as a JSON object: {"name", "version", "extra"}.
void edge_json(JsonWriter& json, const std::string& text) {
  Edge edge = parse_edge(text);
  json.field("name", edge.name.str()).field("version", edge.version);
  json.key("extra").text_or_null(edge.extra);
}

// What `tree` shows of a target: down from its roots, or (`--invert`) up from its leaves or
// the `--package` names to what asked for them; `--depth` levels below the target's line.
struct TreeShape {
  int depth = 255;  // uv's default
  bool invert = false;
  std::vector<pkg::PackageName> packages;  ///< empty = the roots (or, inverted, leaves)
};

// A target's graph walked either way. Inverted, a root's dependents are what asked for it:
// the project, or its extra or group, shown as a label.
class TargetGraph {
 public:
  TargetGraph(const lock::Lockfile& lockfile, const lock::LockedTarget& target, bool invert)
      : lockfile_(lockfile), target_(target), invert_(invert) {
    std::vector<std::string> queue;
    for (const auto& [root, label] : labelled_roots(target)) {
      auto& asked = root_labels_[root];
      asked.push_back(label.empty() ? "the project" : "the project's " + label);
      if (nodes_.insert(root).second) queue.push_back(root);
    }
    for (std::size_t i = 0; i < queue.size(); ++i) {
      for (const std::string& child : children(lockfile_, target_.name, parse_edge(queue[i]))) {
        parents_[child].push_back(queue[i]);
        if (nodes_.insert(child).second) queue.push_back(child);
      }
    }
  }

  std::vector<std::string> next(const std::string& node) const {
    if (!invert_) return children(lockfile_, target_.name, parse_edge(node));
    auto found = parents_.find(node);
    return found == parents_.end() ? std::vector<std::string>() : found->second;
  }

  // The nodes shown first, each with its label.
  std::vector<std::pair<std::string, std::string>> starts(
      const std::vector<pkg::PackageName>& packages) const {
    std::vector<std::pair<std::string, std::string>> out;
    if (!packages.empty()) {
      for (const std::string& node : nodes_) {
        const pkg::PackageName name = parse_edge(node).name;
        if (std::find(packages.begin(), packages.end(), name) != packages.end()) out.push_back({node, label(node)});
      }
      return out;
    }
    if (!invert_) return labelled_roots(target_);
    for (const std::string& node : nodes_) {
      if (children(lockfile_, target_.name, parse_edge(node)).empty()) out.push_back({node, label(node)});
    }
    return out;
  }

  // Inverted, a node the project asks for says so: nothing else is above it.
  std::string label(const std::string& node) const {
    if (!invert_) return "";
    auto found = root_labels_.find(node);
    return found == root_labels_.end() ? "" : join(found->second, ", ");
  }

 private:
  const lock::Lockfile& lockfile_;
  const lock::LockedTarget& target_;
  bool invert_;
  std::set<std::string> nodes_;
  std::map<std::string, std::vector<std::string>> parents_;
  std::map<std::string, std::vector<std::string>> root_labels_;
};

// One target's tree; a package already shown is marked, not expanded again, so the output stays
// linear in the lock's size.
void print_tree(const lock::Lockfile& lockfile, const lock::LockedTarget& target,
                const TreeShape& shape) {
  write_out(target.name + "\n");
  TargetGraph graph(lockfile, target, shape.invert);
  std::set<std::string> shown;
  std::function<void(const std::string&, const std::string&, int)> print =
      [&](const std::string& text, const std::string& label, int depth) {
        if (depth > shape.depth) return;
        bool again = !shown.insert(text).second;
        write_out(str_cat(std::string(std::size_t(depth) * 2, ' '), text,
                          label.empty() ? "" : " (" + label + ")", again ? " (*)" : "", "\n"));
        if (again) return;
        for (const std::string& next : graph.next(text)) print(next, graph.label(next), depth + 1);
      };
  for (const auto& [start, label] : graph.starts(shape.packages)) print(start, label, 1);
}

// The same tree as JSON nodes: {"name", "version", "extra", "via", "repeated", "dependencies"}
// ("dependents" when inverted).
void tree_json(JsonWriter& json, const lock::Lockfile& lockfile, const lock::LockedTarget& target,
               const TreeShape& shape) {
  TargetGraph graph(lockfile, target, shape.invert);
  std::set<std::string> shown;
  std::function<void(const std::string&, const std::string&, int)> node =
      [&](const std::string& text, const std::string& label, int depth) {
        bool again = !shown.insert(text).second;
        json.begin_object();
        edge_json(json, text);
        json.key("via").text_or_null(label);
        json.field("repeated", again).key(shape.invert ? "dependents" : "dependencies").begin_array();
        if (!again && depth < shape.depth) {
          for (const std::string& next : graph.next(text)) node(next, graph.label(next), depth + 1);
        }
        json.end().end();
      };
  json.begin_object().field("name", target.name).key("roots").begin_array();
  if (shape.depth >= 1) {
    for (const auto& [start, label] : graph.starts(shape.packages)) node(start, label, 1);
  }
  json.end().end();
}

// Why a package is in a target: the shortest chain of edges from a root, and what asked for
// the root ("the project", "the project's extra X").
struct Chain {
  std::string via;
  std::vector<std::string> edges;  ///< root first
};

std::optional<Chain> shortest_chain(const lock::Lockfile& lockfile, const lock::LockedTarget& target,
                                    const pkg::PackageName& name) {
  // Breadth-first from the roots.
  std::map<std::string, std::string> parent;
  std::vector<std::string> queue;
  for (const auto& [root, label] : labelled_roots(target)) {
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
    for (const std::string& child : children(lockfile, target.name, parse_edge(queue[i]))) {
      if (parent.emplace(child, queue[i]).second) queue.push_back(child);
    }
  }
  if (!hit) return std::nullopt;
  Chain chain;
  chain.edges.push_back(*hit);
  while (parent.at(chain.edges.back()).rfind("the project", 0) != 0) {
    chain.edges.push_back(parent.at(chain.edges.back()));
  }
  chain.via = parent.at(chain.edges.back());
  std::reverse(chain.edges.begin(), chain.edges.end());
  return chain;
}

}  // namespace

namespace {

// `--depth N`, `--invert`, `--package NAME` (uv's flags).
Result<TreeShape> tree_shape(Arguments& arguments) {
  TreeShape shape;
  shape.invert = arguments.extract_flag("--invert");
  WV_ASSIGN_OR_RETURN(shape.packages, extract_names(arguments, "--package"));
  WV_ASSIGN_OR_RETURN(auto depth, arguments.extract_value("--depth"));
  if (depth) {
    std::optional<std::uint64_t> value = parse_uint64(*depth);
    if (!value || *value > 255) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("`--depth` takes a number from 0 to 255, not ", in_backticks(*depth)));
    }
    shape.depth = int(*value);
  }
  return shape;
}

}  // namespace

int run_tree(const GlobalOptions& options, Arguments& arguments) {
  auto target_name = arguments.extract_value("--target");
  if (!target_name) return fail_reading_lock(target_name.error());
  bool json = arguments.extract_flag("--json");
  const bool all_packages = arguments.extract_flag("--all-packages");
  auto shape = tree_shape(arguments);
  if (!shape) return fail_reading_lock(shape.error());
  if (auto done = arguments.expect_done(); !done) return fail_reading_lock(done.error());
  RealFileSystem file_system;
  auto inputs = read_lock_inputs(options, file_system);
  if (!inputs) return fail_reading_lock(inputs.error());
  // In a workspace, `--package MEMBER` shows that member's tree (uv's meaning); another name
  // keeps tree's own meaning, the subtree of that package.
  auto others = view_workspace_packages(options, inputs->lockfile, shape->packages,
                                        all_packages, nullptr);
  if (!others) return fail_reading_lock(others.error());
  shape->packages = std::move(*others);
  auto targets = chosen_targets(inputs->lockfile, *target_name);
  if (!targets) return fail_reading_lock(targets.error());
  if (!json) {
    for (const lock::LockedTarget* target : *targets) print_tree(inputs->lockfile, *target, *shape);
    return kExitOk;
  }
  JsonWriter writer;
  writer.begin_object().field("version", 1).key("targets").begin_array();
  for (const lock::LockedTarget* target : *targets) tree_json(writer, inputs->lockfile, *target, *shape);
  writer.end().end();
  write_out(writer.text());
  return kExitOk;
}

int run_why(const GlobalOptions& options, Arguments& arguments) {
  auto target_name = arguments.extract_value("--target");
  if (!target_name) return fail_reading_lock(target_name.error());
  bool json = arguments.extract_flag("--json");
  auto wanted = arguments.take_positional();
  if (!wanted) {
    return fail_reading_lock(make_error(ErrorCode::kInvalidInput,
                                        "usage: wvlock why PACKAGE [--target NAME] [--json]"));
  }
  if (auto done = arguments.expect_done(); !done) return fail_reading_lock(done.error());
  Result<pkg::PackageName> parsed = pkg::parse_package_name(*wanted);
  if (!parsed) return fail_reading_lock(std::move(parsed).error().with_context("wvlock why"));
  const pkg::PackageName& name = *parsed;
  RealFileSystem file_system;
  auto inputs = read_lock_inputs(options, file_system);
  if (!inputs) return fail_reading_lock(inputs.error());
  auto targets = chosen_targets(inputs->lockfile, *target_name);
  if (!targets) return fail_reading_lock(targets.error());
  bool found_any = false;
  JsonWriter writer;
  writer.begin_object().field("version", 1).field("package", name.str()).key("targets").begin_array();
  for (const lock::LockedTarget* target : *targets) {
    std::optional<Chain> chain = shortest_chain(inputs->lockfile, *target, name);
    found_any = found_any || chain.has_value();
    writer.begin_object().field("name", target->name).field("needed", chain.has_value());
    writer.key("via").value(chain ? std::optional<std::string>(chain->via) : std::nullopt);
    writer.key("chain").begin_array();
    for (const std::string& edge : chain ? chain->edges : std::vector<std::string>()) {
      writer.begin_object();
      edge_json(writer, edge);
      writer.end();
    }
    writer.end().end();
    if (json) continue;
    if (!chain) {
      write_out(str_cat(target->name, ": ", name, " is not needed\n"));
      continue;
    }
    write_out(str_cat(target->name, ": ", chain->via, " -> ", join(chain->edges, " -> "), "\n"));
  }
  writer.end().end();
  if (json) write_out(writer.text());
  return found_any ? kExitOk : kExitFailure;
}

}  // namespace wv::cli
