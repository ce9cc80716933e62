// Derivation trees and their English report: the proof that no solution exists, walked as in
// dart-lang/pub doc/solver.md "Error Reporting" (reference §1.6), with pubgrub-rs's
// collapse_no_versions() and a ReportFormatter that owns the wording, so a caller (lock/) can
// name packages and version sets its own way.
#pragma once

#include <cstddef>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "solver/term.h"

namespace wv::solver {

/// What a node of the derivation tree is.
enum class NodeKind : unsigned char {
  kNotRoot,      ///< the root version must be selected (package, set = {root version})
  kNoVersions,   ///< no version of package in set
  kUnavailable,  ///< package in set is unavailable because of reason
  kDependency,   ///< package in set depends on dependency in dependency_set
  kDerived,      ///< derived from cause1 and cause2
};

/// The proof of a failed solve: an arena of nodes; causes have smaller indexes than the node
/// they cause. External nodes are facts from the root or the provider.
template <class P, VersionSet VS, class M>
struct DerivationTree {
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  struct Node {
    NodeKind kind = NodeKind::kDerived;
    /// The incompatibility's terms (for a derived node: what was concluded).
    std::vector<std::pair<P, Term<VS>>> terms;
    P package{};
    VS set{};
    P dependency{};
    VS dependency_set{};
    M reason{};
    std::size_t cause1 = kNone;
    std::size_t cause2 = kNone;
    /// How many nodes of the tree this node causes; two or more gets a line number.
    std::size_t parents = 0;

    bool is_external() const { return kind != NodeKind::kDerived; }
  };

  std::vector<Node> nodes;
  std::size_t root = kNone;
  P root_package{};

  /// Every package named anywhere in the tree (terms and external facts), with repeats.
  std::vector<P> packages() const {
    std::vector<P> out;
    for (const Node& n : nodes) {
      for (const auto& [p, t] : n.terms) out.push_back(p);
      if (n.is_external()) out.push_back(n.package);
      if (n.kind == NodeKind::kDependency) out.push_back(n.dependency);
    }
    return out;
  }

  /// Folds each "no versions" fact into its external sibling (pubgrub-rs collapse_no_versions):
  /// "a depends on b >=2" next to "no versions of b >=3" reads as "a depends on b >=2" seen
  /// from the parent, which drops a line that rarely helps. Kept: the root's own facts, and a
  /// "no versions" fact that covers the whole range of a dependency (it is the reason).
  void collapse_no_versions() {
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      Node& n = nodes[i];
      // The root keeps both of its facts: its one line then names the missing versions.
      if (n.kind != NodeKind::kDerived || i == root) continue;
      const Node* c1 = &nodes[n.cause1];
      const Node* c2 = &nodes[n.cause2];
      if (c2->kind == NodeKind::kNoVersions) std::swap(c1, c2);
      if (c1->kind != NodeKind::kNoVersions || !c2->is_external() ||
          c2->kind == NodeKind::kNotRoot) {
        continue;
      }
      Node merged = *c2;
      if (merged.kind == NodeKind::kDependency && !(merged.package == c1->package)) {
        // A dependency none of whose versions exist is the heart of the matter: keep it.
        if (merged.dependency == c1->package && merged.dependency_set.subset_of(c1->set)) continue;
        if (merged.dependency == c1->package) {
          merged.dependency_set = merged.dependency_set.union_with(c1->set);
        }
      } else if (merged.package == c1->package) {
        merged.set = merged.set.union_with(c1->set);
      }
      merged.parents = n.parents;
      merged.terms = std::move(n.terms);  // what the node concludes does not change
      n = std::move(merged);
    }
    recount_parents();
  }

  /// Drops each "no versions" fact whose sibling is derived and forbids versions of the same
  /// package (uv's collapse_redundant_no_versions): "foo ==1 is forbidden" and "no versions of
  /// foo match <1 | >1" conclude "foo is forbidden" only over versions that do not exist, so
  /// the step is skipped and its parents read the sibling's conclusion. Kept: a fact about a
  /// package the sibling only requires (then it is the reason).
  void collapse_redundant_no_versions() {
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      for (std::size_t* cause : {&nodes[i].cause1, &nodes[i].cause2}) {
        if (nodes[i].is_external()) break;
        // Follow chains: a replaced step may itself stand for another.
        while (redundant_step(*cause)) {
          const Node& step = nodes[*cause];
          *cause = nodes[step.cause1].kind == NodeKind::kNoVersions ? step.cause2 : step.cause1;
        }
      }
    }
    recount_parents();
  }

  /// Recomputes `parents` over the nodes reachable from `root`.
  void recount_parents() {
    for (Node& n : nodes) n.parents = 0;
    if (root == kNone) return;
    std::vector<char> seen(nodes.size(), 0);
    std::vector<std::size_t> stack{root};
    seen[root] = 1;
    while (!stack.empty()) {
      std::size_t i = stack.back();
      stack.pop_back();
      if (nodes[i].is_external()) continue;
      for (std::size_t c : {nodes[i].cause1, nodes[i].cause2}) {
        ++nodes[c].parents;
        if (!seen[c]) {
          seen[c] = 1;
          stack.push_back(c);
        }
      }
    }
  }

 private:
  // A derived step from a "no versions" fact on p and a derived fact with a positive term on p.
  bool redundant_step(std::size_t i) const {
    const Node& n = nodes[i];
    if (n.is_external()) return false;
    const Node* none = &nodes[n.cause1];
    const Node* other = &nodes[n.cause2];
    if (other->kind == NodeKind::kNoVersions) std::swap(none, other);
    if (none->kind != NodeKind::kNoVersions || other->is_external()) return false;
    for (const auto& [p, t] : other->terms) {
      if (p == none->package && t.is_positive()) return true;
    }
    return false;
  }
};

/// The wording of a report. DefaultReportFormatter writes dart pub's English; override
/// package_text/set_text/reason_text to rename things, or every method to re-word.
template <class P, VersionSet VS, class M>
class ReportFormatter {
 public:
  using Tree = DerivationTree<P, VS, M>;
  using Node = typename Tree::Node;
  virtual ~ReportFormatter() = default;

  /// One external fact: "foo >=1 depends on bar <2".
  virtual std::string external(const Tree& tree, const Node& node) const = 0;
  /// Two external facts given together (may merge them: "a depends on b which depends on c").
  virtual std::string external_pair(const Tree& tree, const Node& a, const Node& b) const = 0;
  /// What a node concludes: "foo >=1 requires bar <2", "version solving failed".
  virtual std::string conclusion(const Tree& tree, const Node& node) const = 0;
  /// "Because <reasons>, <conclusion>." (`so`: the line ends a chain of reasoning).
  virtual std::string because(const std::string& reasons, const std::string& conclusion) const = 0;
  /// "And because <reasons>, <conclusion>." or, when `so`, "So, because ...".
  virtual std::string and_because(const std::string& reasons, const std::string& conclusion,
                                  bool so) const = 0;
  /// "Thus, <conclusion>."
  virtual std::string thus(const std::string& conclusion) const = 0;
  /// A conclusion that was numbered earlier: "foo is forbidden (1)".
  virtual std::string reference(const std::string& conclusion, std::size_t line) const {
    return conclusion + " (" + std::to_string(line) + ")";
  }
  /// A line given a number for later reference.
  virtual std::string numbered(const std::string& line, std::size_t number) const {
    return line + " (" + std::to_string(number) + ")";
  }
};

/// dart pub's wording: "every version of foo" for the full set, "root" without its version,
/// "a depends on b which depends on c", "root depends on both a and b", "version solving failed".
/// P, VS and M are printed with operator<< unless the *_text methods are overridden.
template <class P, VersionSet VS, class M>
class DefaultReportFormatter : public ReportFormatter<P, VS, M> {
 public:
  using Base = ReportFormatter<P, VS, M>;
  using typename Base::Node;
  using typename Base::Tree;

  virtual std::string package_text(const P& package) const { return stream(package); }
  virtual std::string set_text(const P& /*package*/, const VS& set) const { return stream(set); }
  virtual std::string reason_text(const M& reason) const { return stream(reason); }
  /// A package with a set that is not every version: "foo >=1 <2" (Python writes "foo>=1,<2").
  virtual std::string term_text(const P& package, const VS& set) const {
    return package_text(package) + " " + set_text(package, set);
  }

  std::string external(const Tree& tree, const Node& n) const override {
    switch (n.kind) {
      case NodeKind::kNotRoot:
        return "we are solving dependencies of " + package_text(n.package) + " " +
               set_text(n.package, n.set);
      case NodeKind::kNoVersions:
        if (n.set.is_full()) return "there are no versions of " + package_text(n.package);
        return "no versions of " + package_text(n.package) + " match " + set_text(n.package, n.set);
      case NodeKind::kUnavailable:
        return subject(tree, n.package, n.set) + " is unavailable because " + reason_text(n.reason);
      case NodeKind::kDependency:
        return subject(tree, n.package, n.set) + " depends on " +
               object(n.dependency, n.dependency_set);
      case NodeKind::kDerived:
        break;
    }
    return conclusion(tree, n);
  }

  std::string external_pair(const Tree& tree, const Node& a, const Node& b) const override {
    if (a.kind == NodeKind::kDependency && b.kind == NodeKind::kDependency) {
      for (auto [x, y] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
        if (x->dependency == y->package && !(x->package == y->package) &&
            x->dependency_set.subset_of(y->set)) {
          return subject(tree, x->package, x->set) + " depends on " +
                 object(x->dependency, x->dependency_set) + " which depends on " +
                 object(y->dependency, y->dependency_set);
        }
      }
      if (a.package == b.package && a.set == b.set) {
        return subject(tree, a.package, a.set) + " depends on both " +
               object(a.dependency, a.dependency_set) + " and " +
               object(b.dependency, b.dependency_set);
      }
    }
    return external(tree, a) + " and " + external(tree, b);
  }

  std::string conclusion(const Tree& tree, const Node& n) const override {
    const auto& terms = n.terms;
    if (terms.empty()) return "version solving failed";
    if (terms.size() == 1) {
      const auto& [p, t] = terms[0];
      if (p == tree.root_package && t.is_positive()) return "version solving failed";
      if (t.is_positive()) {
        return (t.set().is_full() ? package_text(p) : subject(tree, p, t.set())) + " is forbidden";
      }
      return object(p, t.set()) + " is required";
    }
    if (terms.size() == 2 && terms[0].second.is_positive() != terms[1].second.is_positive()) {
      const auto& pos = terms[0].second.is_positive() ? terms[0] : terms[1];
      const auto& neg = terms[0].second.is_positive() ? terms[1] : terms[0];
      return subject(tree, pos.first, pos.second.set()) + " requires " +
             object(neg.first, neg.second.set());
    }
    if (terms.size() == 2 && terms[0].second.is_positive()) {
      return subject(tree, terms[0].first, terms[0].second.set()) + " is incompatible with " +
             subject(tree, terms[1].first, terms[1].second.set());
    }
    std::string out;
    for (std::size_t i = 0; i < terms.size(); ++i) {
      if (i > 0) out += i + 1 == terms.size() ? " and " : ", ";
      const auto& [p, t] = terms[i];
      out += t.is_positive() ? subject(tree, p, t.set()) : "not " + object(p, t.set());
    }
    return out + " are incompatible";
  }

  std::string because(const std::string& reasons, const std::string& concl) const override {
    return "Because " + reasons + ", " + concl + ".";
  }
  std::string and_because(const std::string& reasons, const std::string& concl,
                          bool so) const override {
    return (so ? "So, because " : "And because ") + reasons + ", " + concl + ".";
  }
  std::string thus(const std::string& concl) const override { return "Thus, " + concl + "."; }

 protected:
  /// "root", "every version of foo" or "foo >=1 <2".
  std::string subject(const Tree& tree, const P& p, const VS& set) const {
    if (p == tree.root_package) return package_text(p);
    if (set.is_full()) return "every version of " + package_text(p);
    return term_text(p, set);
  }
  /// "foo" (any version) or "foo >=1 <2".
  std::string object(const P& p, const VS& set) const {
    if (set.is_full()) return package_text(p);
    return term_text(p, set);
  }

 private:
  template <class T>
  static std::string stream(const T& value) {
    std::ostringstream out;
    out << value;
    return out.str();
  }
};

/// Writes the report of `tree` (after collapse_no_versions, if wanted) with `formatter`:
/// the lines of dart pub's algorithm, joined by newlines.
template <class P, VersionSet VS, class M>
std::string report(const DerivationTree<P, VS, M>& tree,
                   const ReportFormatter<P, VS, M>& formatter) {
  using Tree = DerivationTree<P, VS, M>;
  struct Writer {
    const Tree& tree;
    const ReportFormatter<P, VS, M>& f;
    std::vector<std::string> lines;
    std::vector<std::size_t> line_of;  // 0: no number
    std::size_t next_number = 1;

    bool simple(std::size_t i) const {
      const auto& n = tree.nodes[i];
      return !n.is_external() && tree.nodes[n.cause1].is_external() &&
             tree.nodes[n.cause2].is_external();
    }
    std::string ref(std::size_t i) const {
      return f.reference(f.conclusion(tree, tree.nodes[i]), line_of[i]);
    }
    std::string concl(std::size_t i) const { return f.conclusion(tree, tree.nodes[i]); }

    void visit(std::size_t i, bool conclusion_line) {
      const auto& n = tree.nodes[i];
      if (line_of[i] != 0) return;  // explained (and numbered) earlier
      bool number_it = conclusion_line || n.parents > 1;
      bool so = conclusion_line || i == tree.root;
      if (n.is_external()) {  // only when the root itself is an external fact
        lines.push_back(f.because(f.external(tree, n), concl(i)));
      } else {
        std::size_t c1 = n.cause1, c2 = n.cause2;
        bool d1 = !tree.nodes[c1].is_external(), d2 = !tree.nodes[c2].is_external();
        if (d1 && d2) {
          if (line_of[c1] && line_of[c2]) {
            lines.push_back(f.because(ref(c1) + " and " + ref(c2), concl(i)));
          } else if (line_of[c1] || line_of[c2]) {
            std::size_t with = line_of[c1] ? c1 : c2, without = line_of[c1] ? c2 : c1;
            visit(without, false);
            lines.push_back(f.and_because(ref(with), concl(i), so));
          } else if (simple(c1) || simple(c2)) {
            std::size_t s = simple(c1) ? c1 : c2, complex = simple(c1) ? c2 : c1;
            visit(complex, false);
            visit(s, false);
            lines.push_back(f.thus(concl(i)));
          } else {
            visit(c1, true);
            lines.emplace_back();
            visit(c2, false);
            lines.push_back(f.and_because(ref(c1), concl(i), so));
          }
        } else if (d1 || d2) {
          std::size_t derived = d1 ? c1 : c2, external = d1 ? c2 : c1;
          const auto& dn = tree.nodes[derived];
          bool prior1 = !tree.nodes[dn.cause1].is_external();
          bool prior2 = !tree.nodes[dn.cause2].is_external();
          if (line_of[derived]) {
            lines.push_back(f.because(
                f.external(tree, tree.nodes[external]) + " and " + ref(derived), concl(i)));
          } else if (prior1 != prior2 && !line_of[prior1 ? dn.cause1 : dn.cause2]) {
            std::size_t prior_derived = prior1 ? dn.cause1 : dn.cause2;
            std::size_t prior_external = prior1 ? dn.cause2 : dn.cause1;
            visit(prior_derived, false);
            lines.push_back(f.and_because(
                f.external_pair(tree, tree.nodes[prior_external], tree.nodes[external]), concl(i),
                so));
          } else {
            visit(derived, false);
            lines.push_back(f.and_because(f.external(tree, tree.nodes[external]), concl(i), so));
          }
        } else {
          lines.push_back(
              f.because(f.external_pair(tree, tree.nodes[c1], tree.nodes[c2]), concl(i)));
        }
      }
      if (number_it) {
        line_of[i] = next_number++;
        lines.back() = f.numbered(lines.back(), line_of[i]);
      }
    }
  };
  if (tree.root == Tree::kNone) return std::string();
  Writer w{tree, formatter, {}, std::vector<std::size_t>(tree.nodes.size(), 0)};
  w.visit(tree.root, false);
  std::string out;
  for (std::size_t i = 0; i < w.lines.size(); ++i) {
    if (i > 0) out += '\n';
    out += w.lines[i];
  }
  return out;
}

/// report() with the default English wording.
template <class P, VersionSet VS, class M>
std::string report(const DerivationTree<P, VS, M>& tree) {
  return report(tree, DefaultReportFormatter<P, VS, M>());
}

}  // namespace wv::solver
