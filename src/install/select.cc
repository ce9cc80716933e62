// Target selection (DESIGN.md §1): platform checks, per-package live-best kept wheels, the
// choice among fitting targets, and the `wvlock targets` table.
#include "src/install/select.h"

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "src/base/str.h"
#include "src/install/pair_target.h"
#include "src/pkg/host_tag_ranks.h"
#include "src/pkg/tags.h"
#include "src/pkg/wheel_filename.h"
#include "targets/detect_report.h"
#include "targets/match.h"
#include "targets/suggest.h"
#include "targets/target.h"
#include "targets/variant_ranking.h"

namespace wv::install {
namespace {

using targets::MajorMinor;

/// The providers of the live host as one target sees them (targets::host_for_target: only the
/// GPU vendors it declares, its declared `properties` answering for their namespaces), with
/// their answers per package version cached.
struct LiveProviders {
  targets::HostProviders providers;
  std::map<const lock::LockedPackage*, targets::SupportedVariants> supported;

  const targets::SupportedVariants& supported_for(const lock::LockedPackage& package) {
    auto it = supported.find(&package);
    if (it == supported.end()) {
      it = supported.emplace(&package, providers.supported(*package.variants)).first;
    }
    return it->second;
  }
};

/// What the live host needs once for every target.
struct LiveContext {
  const targets::HostProfile* host = nullptr;
  /// nullopt when the host lacks a fact tags need. Factored: the few kept wheels are ranked
  /// without the ~700-tag list.
  std::optional<pkg::HostTagRanks> tags;
  std::string tags_problem;
  std::optional<pkg::MarkerEnvironment> markers;
  targets::ProviderOptions provider_options;
  /// Keyed by the host as each target sees it: targets that see it alike share one.
  std::vector<std::pair<targets::HostProfile, std::unique_ptr<LiveProviders>>> providers;

  LiveProviders& providers_for(const targets::Target& declared) {
    targets::HostProfile seen = targets::host_for_target(*host, declared);
    for (auto& [profile, slot] : providers) {
      if (profile == seen) return *slot;
    }
    auto slot = std::make_unique<LiveProviders>(
        LiveProviders{targets::HostProviders(seen, *markers, provider_options), {}});
    providers.emplace_back(std::move(seen), std::move(slot));
    return *providers.back().second;
  }
};

/// One installable kept wheel: the judge's rank, then the lock's own order.
struct WheelRank {
  targets::WheelRank rank;
  std::size_t kept_index = 0;
};

int compare_ranks(const WheelRank& a, const WheelRank& b) {
  if (int c = targets::compare_wheel_ranks(a.rank, b.rank); c != 0) return c;
  if (a.kept_index != b.kept_index) return a.kept_index < b.kept_index ? -1 : 1;
  return 0;
}

/// The live fact a failed variant property is about, for the one-line reason.
std::string live_fact(const targets::HostProfile& host, const pkg::VariantProperty& property) {
  const std::string& ns = property.namespace_;
  if (ns == "nvidia") {
    if (!host.cuda_driver_version.known() && !host.highest_compute_capability()) {
      return "no NVIDIA GPU";
    }
    if (property.feature == "sm_arch") {
      auto capability = host.highest_compute_capability();
      return capability ? str_cat("GPU compute capability ", capability->to_string())
                        : std::string("no NVIDIA GPU compute capability");
    }
    return host.cuda_driver_version.known()
               ? str_cat("CUDA driver ", host.cuda_driver_version.value->to_string())
               : std::string("no CUDA driver");
  }
  if (ns == "amd") {
    if (!host.rocm_version.known() && !host.gfx_archs.known()) return "no AMD GPU";
    if (property.feature == "rocm_version") {
      return host.rocm_version.known() ? str_cat("ROCm ", host.rocm_version.value->to_string())
                                       : std::string("no ROCm");
    }
    if (!host.gfx_archs.known() || host.gfx_archs.value->empty()) return "no AMD GPU";
    return str_cat("GPU ", join(*host.gfx_archs.value, ","));
  }
  if (ns == "intel") {
    if (!host.intel_device_ips.known() || host.intel_device_ips.value->empty()) {
      return "no Intel GPU";
    }
    return str_cat("Intel device IP ", join(*host.intel_device_ips.value, ","));
  }
  if (ns == "x86_64" && host.x86_64_level.known()) {
    return str_cat("x86-64 level v", *host.x86_64_level.value);
  }
  if (ns == "aarch64" && host.aarch64_version.known()) {
    return str_cat("aarch64 ", *host.aarch64_version.value);
  }
  return "";
}

/// How one target fares on the live host.
struct Evaluation {
  bool fits = false;
  std::string reason;
  bool unchanged = true;
  std::vector<ChosenWheel> wheels;
  std::map<pkg::PackageName, WheelRank> ranks;  ///< package name -> its chosen wheel's rank
  int changed = 0;
  std::vector<WheelChange> changes;  ///< the packages counted in `changed`
  targets::HardwareCloseness closeness;
  /// The declared-hardware mismatch its variant wheels overruled ("" when none).
  std::string waived;
};

// Whether the lock sees the hardware of every `vendor`-specific choice of the target's closure,
// so that its variant wheels may judge the live GPU themselves (docs/targets.md §6): at least
// one kept variant wheel uses the vendor's namespace, and no plain wheel of the closure comes
// from another index than another target's entry of that package (a backend index pinned per
// target: `torch 2.9.0+cu128` says nothing the lock can check against a GPU).
bool variants_judge(const lock::Lockfile& lockfile, const lock::LockedTarget& target,
                    targets::GpuVendor vendor, const SelectOptions& options) {
  const std::string_view ns = targets::variant_namespace(vendor);
  bool seen = false;
  for (const lock::LockedPackage* package :
       lockfile.closure(target.name, options.extras, options.groups, options.dependencies)) {
    const lock::TargetUse& use = package->targets.at(target.name);
    if (use.wheels.empty()) continue;  // built here, for this host
    Result<pkg::WheelFilename> parsed = pkg::parse_wheel_filename(use.wheels.front());
    if (parsed && parsed->variant_label && package->variants) {
      if (const auto* properties = package->variants->find_variant(*parsed->variant_label)) {
        for (const pkg::VariantProperty& property : *properties) {
          if (property.namespace_ == ns) seen = true;
        }
      }
      continue;
    }
    for (const lock::LockedPackage& other : lockfile.packages) {
      if (other.name != package->name || other.index == package->index) continue;
      for (const auto& [name, other_use] : other.targets) {
        if (name != target.name) return false;  // a plain build pinned per target
      }
    }
  }
  return seen;
}

Evaluation evaluate(const lock::Lockfile& lockfile, const lock::LockedTarget& target,
                    LiveContext& live, const SelectOptions& options, bool force) {
  Evaluation result;
  targets::TargetFit fit = targets::fit_target(target.declared, *live.host);
  result.closeness = fit.closeness;
  std::string mismatch = fit.reason;
  std::string waived;
  if (fit.gpu_mismatch && variants_judge(lockfile, target, *fit.gpu_mismatch, options)) {
    // Its variant wheels judge the live GPU; it ranks after every target whose declaration
    // serves the host.
    waived = std::exchange(mismatch, "");
    result.closeness.tier = 1;
  }
  if (mismatch.empty() && !live.tags) mismatch = live.tags_problem;
  if (!mismatch.empty()) {
    result.reason = mismatch;
    if (!force) return result;
  }
  // Made when the first variant wheel is judged: a lock without one runs no provider.
  LiveProviders* providers = nullptr;
  auto providers_now = [&]() -> LiveProviders& {
    if (providers == nullptr) providers = &live.providers_for(target.declared);
    return *providers;
  };
  for (const lock::LockedPackage* package :
       lockfile.closure(target.name, options.extras, options.groups, options.dependencies)) {
    const lock::TargetUse& use = package->targets.at(target.name);
    if (use.wheels.empty() && package->has_source()) {  // the lock says: build it here
      result.wheels.push_back(ChosenWheel{package, nullptr, "", true});
      continue;
    }
    std::optional<WheelRank> best;
    const lock::LockedFile* best_file = nullptr;
    std::string best_label;
    std::string first_reason;
    for (std::size_t i = 0; i < use.wheels.size(); ++i) {
      const lock::LockedFile* file = package->find_wheel(use.wheels[i]);
      std::string why;
      Result<pkg::WheelFilename> parsed = pkg::parse_wheel_filename(use.wheels[i]);
      std::optional<WheelRank> rank;
      const std::string subject = str_cat(package->name, " ", package->version);
      if (file == nullptr) {
        why = str_cat(in_backticks(use.wheels[i]), " is not listed");
      } else if (!parsed) {
        why = parsed.error().message;
      } else if (!live.tags || !live.markers) {
        why = live.tags_problem;
      } else {
        const bool variant = parsed->variant_label.has_value() && package->variants.has_value();
        targets::WheelVerdict verdict = targets::judge_wheel(
            *parsed, *live.tags, variant ? &*package->variants : nullptr,
            variant ? &providers_now().supported_for(*package) : nullptr,
            "the lock has no variant metadata for it");
        if (verdict.rank) {
          rank = WheelRank{std::move(*verdict.rank), i};
        } else if (verdict.problem == targets::WheelProblem::kTags) {
          why = str_cat(subject, ": no tag of ", in_backticks(use.wheels[i]), " fits this host");
        } else if (verdict.variant && !verdict.variant->property.namespace_.empty()) {
          std::string fact = live_fact(*live.host, verdict.variant->property);
          why = str_cat(fact.empty() ? "" : fact + ", ", subject, " needs ",
                        verdict.variant->property.to_string());
        } else {
          why = str_cat(subject, ": ", in_backticks(use.wheels[i]), ": ", verdict.reason);
        }
      }
      if (!rank) {
        if (first_reason.empty()) first_reason = why;
        continue;
      }
      if (!best || compare_ranks(*rank, *best) < 0) {
        best = rank;
        best_file = file;
        best_label = parsed->variant_label.value_or("");
      }
    }
    if (!best) {
      if (result.reason.empty()) {
        result.reason = first_reason.empty()
                            ? str_cat(package->name, " ", package->version,
                                      " has no kept wheel for this target")
                            : first_reason;
      }
      if (!force || use.wheels.empty()) return result;
      // --no-verify-target: the lock-time choice, as the lock says.
      const lock::LockedFile* file = package->find_wheel(use.wheels.front());
      if (file == nullptr) return result;
      auto parsed = pkg::parse_wheel_filename(file->name);
      result.wheels.push_back(ChosenWheel{
          package, file, parsed && parsed->variant_label ? *parsed->variant_label : "", true});
      continue;
    }
    bool lock_time = best->kept_index == 0;
    if (!lock_time) {
      result.unchanged = false;
      ++result.changed;
      result.changes.push_back(
          WheelChange{package->name.str(), package->version, best_file->name, use.wheels.front()});
    }
    result.ranks[package->name] = *best;
    result.wheels.push_back(ChosenWheel{package, best_file, best_label, lock_time});
  }
  result.fits = result.reason.empty();
  if (!result.fits) result.unchanged = false;
  result.waived = std::move(waived);
  return result;
}

/// Negative when target `a` is the better choice (DESIGN.md §1): a target whose declared
/// hardware the host has beats one that declares none, the closest declaration beats a
/// farther one; then more of the shared packages get a better live-best wheel under `a`.
int compare_targets(const Evaluation& a, const Evaluation& b) {
  if (int c = targets::compare_closeness(a.closeness, b.closeness); c != 0) return c;
  int score = 0;
  for (const auto& [name, rank] : a.ranks) {
    auto other = b.ranks.find(name);
    if (other == b.ranks.end()) continue;
    int c = targets::compare_wheel_quality(rank.rank, other->second.rank);
    score += c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  if (score != 0) return score;
  // On a tie, the target whose lock-time choices need the fewest changes here: an H100 host
  // fits both the a100 target (via its kept sm_90 build) and the h100 target, and h100 is the
  // one declared for it. "Unchanged" (no change at all) is the extreme case of this rule.
  if (a.changed != b.changed) return a.changed < b.changed ? -1 : 1;
  return 0;
}

LiveContext make_live_context(const targets::HostProfile& live, const SelectOptions& options) {
  LiveContext context;
  context.host = &live;
  context.provider_options = options.providers;
  Result<pkg::TagPlatform> tags = targets::tag_platform(live);
  Result<pkg::MarkerEnvironment> markers = targets::marker_environment(live);
  if (tags && markers) {
    context.tags.emplace(*tags);
    context.markers.emplace(std::move(*markers));
  } else {
    context.tags_problem = str_cat("this host's tags are unknown: ",
                                   tags ? markers.error().message : tags.error().message);
  }
  return context;
}

std::string fit_note(const Evaluation& evaluation) {
  std::string note = evaluation.unchanged
                         ? std::string("lock-time choices fit unchanged")
                         : str_cat(evaluation.changed,
                                   evaluation.changed == 1 ? " package gets" : " packages get",
                                   " another kept wheel than at lock time");
  if (evaluation.waived.empty()) return note;
  return str_cat("its variant wheels fit this GPU (declared: ", evaluation.waived, "); ", note);
}

struct Outcome {
  std::vector<TargetVerdict> verdicts;
  std::vector<Evaluation> evaluations;
  int selected = -1;
  std::optional<CpuFallback> fallback;
};

// Of the targets declaring `vendor`, the one whose widened declaration is the closest fit
// (the highest lowest-capability the host's GPUs are above, else the first): "" when none
// can be widened.
std::string widen_hint(const lock::Lockfile& lockfile, const targets::HostProfile& live,
                       targets::GpuVendor vendor) {
  const lock::LockedTarget* best = nullptr;
  std::string best_line;
  for (const lock::LockedTarget& target : lockfile.targets) {
    if (!targets::declares_gpu(target.declared.profile, vendor)) continue;
    std::string line = targets::widened_declaration(target.declared, live, vendor);
    if (line.empty()) continue;
    const auto& ccs = target.declared.profile.compute_capabilities.value;
    const auto& best_ccs = best ? best->declared.profile.compute_capabilities.value : std::nullopt;
    const bool closer = best == nullptr ||
                        (ccs && best_ccs && *std::min_element(ccs->begin(), ccs->end()) >
                                                *std::min_element(best_ccs->begin(), best_ccs->end()));
    if (closer) {
      best = &target;
      best_line = std::move(line);
    }
  }
  if (best == nullptr) return "";
  return str_cat("hint: or widen ", in_backticks(best->name),
                 " in pyproject.toml if its builds run on this GPU: `", best_line,
                 "`, then `wvlock lock`");
}

// Why the host's GPU itself cannot be served by a wider declaration: a driver or ROCm that is
// too old or was not found.
std::string runtime_hint(const targets::HostProfile& live, targets::GpuVendor vendor) {
  if (vendor == targets::GpuVendor::kAmd && !live.rocm_version.known()) {
    return "hint: no ROCm version was found: if ROCm is installed, set ROCM_PATH to it (or "
           "WVLOCK_OVERRIDE_ROCM=M.m)";
  }
  if (vendor == targets::GpuVendor::kNvidia && !live.cuda_driver_version.known()) {
    return "hint: no CUDA driver version was found (WVLOCK_OVERRIDE_CUDA_DRIVER=M.m sets it)";
  }
  return "";
}

// The CPU fallback at stake when the selected target declares no GPU while the host has a GPU
// of a vendor some target declares (docs/targets.md §6): each such target's reason, the fixes.
std::optional<CpuFallback> find_cpu_fallback(const lock::Lockfile& lockfile, const Outcome& outcome,
                                             const targets::HostProfile& live) {
  if (outcome.selected < 0) return std::nullopt;
  const lock::LockedTarget& chosen = lockfile.targets[outcome.selected];
  for (targets::GpuVendor vendor : targets::kGpuVendors) {
    if (targets::declares_gpu(chosen.declared.profile, vendor)) return std::nullopt;
  }
  CpuFallback fallback;
  fallback.target = chosen.name;
  std::vector<std::string> hints;
  for (targets::GpuVendor vendor : targets::kGpuVendors) {
    if (!targets::has_gpu(live, vendor)) continue;
    const lock::LockedTarget* like = nullptr;
    for (std::size_t i = 0; i < lockfile.targets.size(); ++i) {
      const lock::LockedTarget& target = lockfile.targets[i];
      if (!targets::declares_gpu(target.declared.profile, vendor)) continue;
      if (like == nullptr) like = &target;
      const Evaluation& evaluation = outcome.evaluations[i];
      fallback.reasons.push_back(str_cat(target.name, ": ", evaluation.fits ? fit_note(evaluation)
                                                                           : evaluation.reason));
    }
    if (like == nullptr) continue;
    fallback.vendors.emplace_back(targets::to_string(vendor));
    if (std::string hint = runtime_hint(live, vendor); !hint.empty()) hints.push_back(hint);
    std::string table = targets::suggested_target(live, like->declared, vendor);
    if (!table.empty() && table.back() == '\n') table.pop_back();
    hints.push_back(str_cat("hint: add a target for this hardware to pyproject.toml (and to the ",
                            "`targets` of the sources that pin GPU builds), then `wvlock lock`:\n",
                            table));
    if (std::string widen = widen_hint(lockfile, live, vendor); !widen.empty()) {
      hints.push_back(std::move(widen));
    }
  }
  if (fallback.vendors.empty()) return std::nullopt;
  hints.push_back(str_cat("hint: or install the CPU target ", in_backticks(fallback.target),
                          " anyway: `--allow-cpu-fallback`, WVLOCK_ALLOW_CPU_FALLBACK=1 or ",
                          "`cpu-fallback = true` in [tool.wvlock]"));
  fallback.fixes = std::move(hints);
  return fallback;
}

Outcome run(const lock::Lockfile& lockfile, const targets::HostProfile& live,
            const SelectOptions& options) {
  LiveContext context = make_live_context(live, options);
  Outcome outcome;
  for (const lock::LockedTarget& target : lockfile.targets) {
    bool forced = !options.forced_target.empty() && targets::same_target_name(target.name, options.forced_target);
    outcome.evaluations.push_back(
        evaluate(lockfile, target, context, options, forced && !options.verify));
  }
  for (std::size_t i = 0; i < lockfile.targets.size(); ++i) {
    const Evaluation& evaluation = outcome.evaluations[i];
    if (!options.forced_target.empty()) {
      if (targets::same_target_name(lockfile.targets[i].name, options.forced_target) &&
          (evaluation.fits || !options.verify)) {
        outcome.selected = static_cast<int>(i);
      }
      continue;
    }
    if (!evaluation.fits) continue;
    if (outcome.selected < 0 ||
        compare_targets(evaluation, outcome.evaluations[outcome.selected]) < 0) {
      outcome.selected = static_cast<int>(i);
    }
  }
  // A forced target is the user's choice, never a silent fallback.
  if (options.forced_target.empty()) {
    outcome.fallback = find_cpu_fallback(lockfile, outcome, live);
    if (outcome.fallback && !options.allow_cpu_fallback) outcome.selected = -1;
  }
  for (std::size_t i = 0; i < lockfile.targets.size(); ++i) {
    const Evaluation& evaluation = outcome.evaluations[i];
    TargetVerdict verdict;
    verdict.name = lockfile.targets[i].name;
    verdict.unchanged = evaluation.fits && evaluation.unchanged;
    if (evaluation.fits) verdict.changes = evaluation.changes;
    if (static_cast<int>(i) == outcome.selected) {
      verdict.status = TargetStatus::kSelected;
      verdict.reason = evaluation.fits ? fit_note(evaluation)
                                       : str_cat("forced with --no-verify-target: ", evaluation.reason);
      if (!options.forced_target.empty() && evaluation.fits) {
        verdict.reason = str_cat("forced; ", verdict.reason);
      }
    } else if (evaluation.fits) {
      verdict.status = TargetStatus::kFits;
      verdict.reason = fit_note(evaluation);
    } else {
      verdict.status = TargetStatus::kRuledOut;
      verdict.reason = evaluation.reason;
    }
    outcome.verdicts.push_back(std::move(verdict));
  }
  return outcome;
}

// "`a`, `b`", or "none".
std::string backticked_list(const std::vector<std::string>& names) {
  return names.empty() ? std::string("none") : join_backticked(names);
}

// Every name in `asked` must be one of `declared` (the project's extras or groups, as locked).
const std::string& name_text(const std::string& name) { return name; }
const std::string& name_text(const pkg::ExtraName& name) { return name.str(); }

// `asked`: strings (SelectOptions) or pkg::ExtraName (InstallRequest), each in normal form.
template <typename Name>
Result<void> check_declared(const std::vector<std::string>& declared,
                            const std::vector<Name>& asked, std::string_view what,
                            std::string_view flag) {
  for (const Name& asked_name : asked) {
    const std::string& name = name_text(asked_name);
    if (std::find(declared.begin(), declared.end(), name) != declared.end()) continue;
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("`", flag, " ", name, "`: the project declares no ", what, " ",
                              in_backticks(name), "; it declares ", backticked_list(declared)));
  }
  return {};
}

// An extra asked for must be one the selected target locks: a target installs its own extras,
// and another target's cannot be added to it.
Result<void> check_target_extras(const lock::Lockfile& lockfile, const lock::LockedTarget& chosen,
                                 const std::vector<std::string>& installed,
                                 const SelectOptions& options) {
  for (const std::string& extra : options.extras) {
    if (std::find(installed.begin(), installed.end(), extra) != installed.end()) continue;
    std::vector<std::string> others;
    for (const lock::LockedTarget& target : lockfile.targets) {
      if (target.extra_roots.count(extra)) others.push_back(target.name);
    }
    Error error = make_error(
        ErrorCode::kInvalidInput,
        str_cat("`--extra ", extra, "`: the selected target ", in_backticks(chosen.name),
                options.dependencies ? " locks no extra " : " installs no extra with --only-group: ",
                in_backticks(extra), "; its extras are ", backticked_list(installed)));
    if (!others.empty()) {
      error.notes.push_back(str_cat("note: extra ", in_backticks(extra), " is locked by ",
                                    join(others, ", "), " (`--target NAME` takes one)"));
    }
    return error;
  }
  return {};
}

}  // namespace

namespace {

// `--target gpu` of a target locked for several Pythons names the pair of the environment's
// Python (install/pair_target.h).
Result<SelectOptions> with_pair_target(const lock::Lockfile& lockfile,
                                       const targets::HostProfile& live, SelectOptions options) {
  WV_ASSIGN_OR_RETURN(options.forced_target, pair_target(lockfile, live, options.forced_target));
  return options;
}

}  // namespace

std::vector<TargetVerdict> evaluate_targets(const lock::Lockfile& lockfile,
                                            const targets::HostProfile& live,
                                            const SelectOptions& asked,
                                            std::optional<CpuFallback>* fallback) {
  Result<SelectOptions> options = with_pair_target(lockfile, live, asked);
  Outcome outcome = run(lockfile, live, options ? *options : asked);
  if (fallback != nullptr) *fallback = std::move(outcome.fallback);
  return std::move(outcome.verdicts);
}

Error cpu_fallback_error(const CpuFallback& fallback, const targets::HostProfile& live) {
  Error error = make_error(
      ErrorCode::kUnavailable,
      str_cat("this host has ", join(fallback.vendors, " and "), " GPUs (",
              targets::describe(live), ") but no GPU target of the lock serves them: refusing ",
              "to install the CPU target ", in_backticks(fallback.target)));
  for (const std::string& reason : fallback.reasons) error.notes.push_back(reason);
  for (const std::string& fix : fallback.fixes) error.notes.push_back(fix);
  return error;
}

std::string cpu_fallback_warning(const CpuFallback& fallback) {
  return str_cat("this host has ", join(fallback.vendors, " and "), " GPUs but no GPU target ",
                 "of the lock serves them: installing the CPU target ",
                 in_backticks(fallback.target), " (CPU fallback allowed)");
}

void write_fallback_json(JsonWriter& json, const std::optional<CpuFallback>& fallback,
                         const TargetVerdict* selected) {
  json.field("fallback", fallback && selected != nullptr && selected->name == fallback->target);
  json.key("fallback_reasons").strings(fallback ? fallback->reasons : std::vector<std::string>{});
}

Result<TargetChoice> select_target(const lock::Lockfile& lockfile,
                                   const targets::HostProfile& live, const SelectOptions& asked) {
  WV_ASSIGN_OR_RETURN(const SelectOptions options, with_pair_target(lockfile, live, asked));
  if (lockfile.targets.empty()) {
    return make_error(ErrorCode::kInvalidLockfile, "the lockfile declares no targets");
  }
  WV_TRY(check_declared(lockfile.extras, options.extras, "extra", "--extra"));
  WV_TRY(check_declared(lockfile.dependency_groups, options.groups, "dependency group", "--group"));
  if (!options.forced_target.empty() && !lockfile.find_target(options.forced_target)) {
    std::vector<std::string> names;
    for (const auto& target : lockfile.targets) names.push_back(target.name);
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("unknown target ", in_backticks(options.forced_target),
                              ": the lock declares ", join(names, ", ")));
  }
  Outcome outcome = run(lockfile, live, options);
  if (outcome.fallback && !options.allow_cpu_fallback) {
    return cpu_fallback_error(*outcome.fallback, live);
  }
  if (outcome.selected < 0) {
    Error error = make_error(
        ErrorCode::kUnavailable,
        options.forced_target.empty()
            ? std::string("no target of the lock fits this host")
            : str_cat("target ", in_backticks(options.forced_target),
                      " does not fit this host (use --no-verify-target to install it anyway)"));
    error.notes.push_back(str_cat("host: ", targets::describe(live)));
    for (const TargetVerdict& verdict : outcome.verdicts) {
      error.notes.push_back(str_cat(verdict.name, ": ", verdict.reason));
    }
    return error;
  }
  const lock::LockedTarget& chosen = lockfile.targets[outcome.selected];
  TargetChoice selection;
  selection.target = chosen.name;
  if (options.dependencies) {
    for (const auto& [extra, roots] : chosen.extra_roots) selection.extras.push_back(extra);
  }
  WV_TRY(check_target_extras(lockfile, chosen, selection.extras, options));
  selection.groups = options.groups;
  selection.wheels = std::move(outcome.evaluations[outcome.selected].wheels);
  selection.verdicts = std::move(outcome.verdicts);
  selection.host_summary = targets::describe(live);
  selection.fallback = std::move(outcome.fallback);
  return selection;
}

const TargetVerdict* selected_verdict(const std::vector<TargetVerdict>& verdicts) {
  for (const TargetVerdict& verdict : verdicts) {
    if (verdict.status == TargetStatus::kSelected) return &verdict;
  }
  return nullptr;
}

const TargetVerdict* TargetChoice::selected_verdict() const {
  return install::selected_verdict(verdicts);
}

std::string_view to_string(TargetStatus status) {
  switch (status) {
    case TargetStatus::kSelected: return "selected";
    case TargetStatus::kFits: return "fits";
    case TargetStatus::kRuledOut: return "does-not-fit";
  }
  return "does-not-fit";
}

std::string describe(const WheelChange& change) {
  return str_cat(change.name, " ", change.version, ": ", change.wheel, " (lock time: ",
                 change.lock_time_wheel, ")");
}

Result<void> apply_install_request(const lock::Lockfile& lockfile, const InstallRequest& request,
                                   SelectOptions& options) {
  // PEP 751: `default-groups` SHOULD NOT appear in `dependency-groups`; a lock without targets
  // (another tool's) may still be asked for them by name.
  std::vector<std::string> declared = lockfile.dependency_groups;
  if (lockfile.targets.empty()) {
    for (const std::string& group : lockfile.default_groups) {
      if (std::find(declared.begin(), declared.end(), group) == declared.end()) {
        declared.push_back(group);
      }
    }
  }
  WV_TRY(check_declared(lockfile.extras, request.extras, "extra", "--extra"));
  WV_TRY(check_declared(declared, request.groups, "dependency group", "--group"));
  WV_TRY(check_declared(declared, request.only_groups, "dependency group", "--only-group"));
  WV_TRY(check_declared(declared, request.no_groups, "dependency group", "--no-group"));
  std::set<std::string> groups;
  if (request.all_groups) {
    groups.insert(declared.begin(), declared.end());
  } else if (request.only()) {
    for (const pkg::ExtraName& group : request.only_groups) groups.insert(group.str());
  } else if (!request.no_default_groups) {
    for (const std::string& group : lockfile.default_groups) {
      // A lock's default group the lock does not declare cannot be installed.
      if (std::find(declared.begin(), declared.end(), group) != declared.end()) groups.insert(group);
    }
  }
  for (const pkg::ExtraName& group : request.groups) groups.insert(group.str());
  for (const pkg::ExtraName& group : request.no_groups) groups.erase(group.str());
  if (request.no_dev) groups.erase("dev");
  options.groups.assign(groups.begin(), groups.end());
  options.dependencies = !request.only();
  options.extras.clear();
  for (const pkg::ExtraName& extra : request.extras) options.extras.push_back(extra.str());
  return {};
}

std::string render_targets_table(const lock::Lockfile& lockfile,
                                 const std::vector<TargetVerdict>& verdicts,
                                 const targets::HostProfile& live) {
  std::vector<std::array<std::string, 4>> rows;
  rows.push_back({"TARGET", "PLATFORM", "STATUS", "WHY"});
  for (const TargetVerdict& verdict : verdicts) {
    std::string platform;
    if (const lock::LockedTarget* target = lockfile.find_target(verdict.name)) {
      platform = target->declared.platform;
    }
    const char* status = verdict.status == TargetStatus::kSelected ? "selected"
                         : verdict.status == TargetStatus::kFits   ? "fits"
                                                                    : "no";
    rows.push_back({verdict.name, platform, status, verdict.reason});
  }
  std::size_t widths[3] = {0, 0, 0};
  for (const auto& row : rows) {
    for (int i = 0; i < 3; ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out = str_cat("host: ", targets::describe(live), "\n");
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const auto& row = rows[r];
    bool selected = r > 0 && verdicts[r - 1].status == TargetStatus::kSelected;
    out += selected ? "* " : "  ";
    for (int i = 0; i < 3; ++i) {
      out += row[i];
      out.append(widths[i] - row[i].size() + 2, ' ');
    }
    out += row[3];
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
    if (r == 0) continue;
    for (const WheelChange& change : verdicts[r - 1].changes) {
      out += str_cat(std::string(widths[0] + 4, ' '), describe(change), "\n");
    }
  }
  return out;
}

void write_verdicts_json(JsonWriter& json, const lock::Lockfile& lockfile,
                         const std::vector<TargetVerdict>& verdicts) {
  json.begin_array();
  for (const TargetVerdict& verdict : verdicts) {
    const lock::LockedTarget* target = lockfile.find_target(verdict.name);
    json.begin_object().field("name", verdict.name);
    json.key("platform");
    if (target != nullptr) json.value(target->declared.platform); else json.null();
    // The (target, Python) pair: a target declared with several Pythons is one per Python.
    json.key("python");
    if (target != nullptr && target->declared.profile.python_version.known()) {
      json.value(target->declared.profile.python_version.value->to_string());
    } else {
      json.null();
    }
    json.key("declared_name");
    if (target != nullptr && !target->declared.declared_name.empty()) {
      json.value(target->declared.declared_name);
    } else {
      json.null();
    }
    json.field("status", to_string(verdict.status));
    json.key("reasons").strings({verdict.reason});
    json.key("wheel_changes");
    write_wheel_changes_json(json, verdict.changes);
    json.end();
  }
  json.end();
}

void write_wheel_changes_json(JsonWriter& json, const std::vector<WheelChange>& changes) {
  json.begin_array();
  for (const WheelChange& change : changes) {
    json.begin_object().field("name", change.name).field("version", change.version);
    json.field("wheel", change.wheel).field("lock_time_wheel", change.lock_time_wheel).end();
  }
  json.end();
}

void write_host_json(JsonWriter& json, const targets::HostProfile& live) {
  json.begin_object().field("summary", targets::describe(live)).key("facts");
  targets::write_facts_json(json, live);
  json.end();
}

std::string render_targets_json(const lock::Lockfile& lockfile,
                                const std::vector<TargetVerdict>& verdicts,
                                const targets::HostProfile& live,
                                const std::optional<CpuFallback>& fallback) {
  JsonWriter json;
  json.begin_object().field("version", 1).key("host");
  write_host_json(json, live);
  json.key("targets");
  write_verdicts_json(json, lockfile, verdicts);
  json.key("selected");
  if (const TargetVerdict* selected = selected_verdict(verdicts)) {
    json.value(selected->name);
  } else {
    json.null();
  }
  write_fallback_json(json, fallback, selected_verdict(verdicts));
  json.end();
  return json.text();
}

}  // namespace wv::install
