#include "lock/solve_target.h"

#include "base/limits.h"
#include "base/str.h"
#include "solver/state_impl.h"

namespace wv::lock {
namespace {

using Package = PythonProvider::Package;
using Set = PythonProvider::Set;

// PubGrub's English with Python names: packages by name (extras as `name[extra]`), version sets
// as the user writes specifiers, and the provider's "no wheel for target ..." reasons as is.
class PythonReportFormatter final
    : public solver::DefaultReportFormatter<Package, Set, std::string> {
 public:
  explicit PythonReportFormatter(const PythonProvider& provider) : provider_(provider) {}
  std::string package_text(const Package& package) const override {
    return provider_.package_text(package);
  }
  std::string set_text(const Package& package, const Set& set) const override {
    return provider_.set_text(package, set);
  }
  std::string reason_text(const std::string& reason) const override { return reason; }

 private:
  const PythonProvider& provider_;
};

}  // namespace

Result<std::variant<PythonSolution, std::string>> solve_target(
    PythonProvider& provider, const std::vector<std::pair<Package, int>>& preferred,
    std::string_view target_name, std::uint64_t max_steps) {
  solver::SolveOptions<Package, int> options;
  options.preferred = preferred;
  options.max_steps = std::size_t(max_steps);
  auto outcome = solver::solve(provider, PythonProvider::kRoot, 0, options);
  if (auto* solution = std::get_if<0>(&outcome)) {
    return std::variant<PythonSolution, std::string>(std::move(*solution));
  }
  if (auto* failure = std::get_if<2>(&outcome)) return std::move(failure->error);
  if (auto* stopped = std::get_if<3>(&outcome)) {
    return limit_error(Limit::kSolverSteps,
                       str_cat("the resolution of target ", in_backticks(target_name)),
                       std::nullopt, stopped->steps);
  }
  auto& no_solution = std::get<1>(outcome);
  no_solution.tree.collapse_no_versions();
  PythonReportFormatter formatter(provider);
  return std::variant<PythonSolution, std::string>(solver::report(no_solution.tree, formatter));
}

}  // namespace wv::lock
