#include "lock/wheel_choice.h"

#include <algorithm>

#include "src/base/str.h"

namespace wv::lock {

std::optional<targets::VariantClass> WheelChoice::best_class() const {
  if (compatible.empty()) return std::nullopt;
  return compatible.front().rank.variant.kind;
}

int compare_ranked_wheels(const RankedWheel& a, const RankedWheel& b) {
  if (int c = targets::compare_wheel_ranks(a.rank, b.rank)) return c;
  return a.file->filename < b.file->filename ? -1 : (a.file->filename > b.file->filename);
}

WheelChoice choose_wheels(const TargetContext& target, std::string_view package,
                          std::string_view version, const std::vector<pkg::Distribution>& wheels,
                          const Result<pkg::VariantsMetadata>* variants) {
  WheelChoice choice;
  std::optional<targets::SupportedVariants> supported;
  const pkg::VariantsMetadata* metadata = variants && *variants ? &**variants : nullptr;
  const std::string variants_problem =
      variants && !*variants ? variants->error().message : std::string();
  std::string first_variant_failure;
  std::size_t platform_matches = 0;
  for (const pkg::Distribution& file : wheels) {
    auto filename = pkg::parse_wheel_filename(file.filename);
    if (!filename) continue;
    if (metadata && filename->variant_label && !supported) {
      supported = target.providers.supported(*metadata);
    }
    targets::WheelVerdict verdict = targets::judge_wheel(
        *filename, target.tags, metadata, supported ? &*supported : nullptr, variants_problem);
    if (verdict.problem == targets::WheelProblem::kTags) continue;
    ++platform_matches;
    if (verdict.rank) {
      choice.compatible.push_back(RankedWheel{&file, std::move(*filename), std::move(*verdict.rank)});
      continue;
    }
    if (first_variant_failure.empty()) {
      first_variant_failure =
          verdict.problem == targets::WheelProblem::kNoVariantMetadata && !variants
              ? str_cat("variant wheel ", in_backticks(file.filename),
                        " has no `*-variants.json` describing label ",
                        in_backticks(*filename->variant_label))
              : verdict.reason;
    }
    if (verdict.problem == targets::WheelProblem::kVariant) {
      targets::WheelRank tags_only{targets::non_variant_score(),
                                   *target.tags.best_rank(filename->tags), filename->build};
      choice.other_variants.push_back(RankedWheel{&file, std::move(*filename), tags_only});
    }
  }
  auto order = [](const RankedWheel& a, const RankedWheel& b) {
    return compare_ranked_wheels(a, b) < 0;
  };
  std::sort(choice.compatible.begin(), choice.compatible.end(), order);
  std::sort(choice.other_variants.begin(), choice.other_variants.end(),
            [](const RankedWheel& a, const RankedWheel& b) {
              if (a.rank.tag_rank != b.rank.tag_rank) return a.rank.tag_rank < b.rank.tag_rank;
              return a.file->filename < b.file->filename;
            });
  if (choice.compatible.empty()) {
    std::string subject = str_cat(package, " ", version);
    if (wheels.empty()) {
      choice.unavailable_reason =
          str_cat("no wheel for target ", target.name, ": ", subject, " has none");
    } else if (platform_matches == 0) {
      const pkg::Tag& best_tag = target.tags.tags().front();
      const NearMiss near = closest_wheel(wheels, best_tag);
      choice.unavailable_reason =
          str_cat("no wheel for target ", target.name, ": no ", subject, " wheel matches ",
                  best_tag.interpreter, " ", best_tag.platform, " (the closest is ",
                  near.file->filename, wheels.size() > 1 ? str_cat(" of ", wheels.size()) : "", ")",
                  near.needs);
    } else {
      choice.unavailable_reason = str_cat("no wheel for target ", target.name, ": every ",
                                          subject, " wheel for this platform needs what the ",
                                          "target lacks: ", first_variant_failure);
    }
  }
  return choice;
}

namespace {

// A platform tag taken apart: `manylinux_2_28_x86_64` -> {"manylinux", 2, 28, "x86_64"};
// `linux_x86_64` -> {"linux", 0, 0, "x86_64"}; `win_amd64` -> {"win", 0, 0, "amd64"}.
struct PlatformParts {
  std::string family, arch;
  int major = 0, minor = 0;
};

PlatformParts platform_parts(std::string_view platform) {
  PlatformParts parts;
  std::vector<std::string_view> pieces = split(platform, '_');
  if (pieces.empty()) return parts;
  parts.family = std::string(pieces[0]);
  std::size_t arch_from = 1;
  if ((parts.family == "manylinux" || parts.family == "musllinux" || parts.family == "macosx") &&
      pieces.size() > 3) {
    parts.major = int(parse_uint64(pieces[1]).value_or(0));
    parts.minor = int(parse_uint64(pieces[2]).value_or(0));
    arch_from = 3;
  }
  std::vector<std::string_view> arch(pieces.begin() + std::ptrdiff_t(std::min(arch_from, pieces.size())), pieces.end());
  parts.arch = join(arch, "_");
  if (parts.family == "linux") parts.family = "manylinux";  // the same C library to judge by
  return parts;
}

}  // namespace

NearMiss closest_wheel(const std::vector<pkg::Distribution>& wheels, const pkg::Tag& wanted) {
  const PlatformParts target = platform_parts(wanted.platform);
  NearMiss best{&wheels.front(), ""};
  int best_score = -1;
  for (const pkg::Distribution& file : wheels) {
    auto filename = pkg::parse_wheel_filename(file.filename);
    if (!filename) continue;
    for (const pkg::Tag& tag : filename->tags) {
      const PlatformParts parts = platform_parts(tag.platform);
      const bool same_arch = parts.arch == target.arch || tag.platform == "any";
      const bool same_family = parts.family == target.family || tag.platform == "any";
      const int score = 4 * same_arch + 2 * same_family + (tag.interpreter == wanted.interpreter);
      if (score <= best_score) continue;
      best_score = score;
      best.file = &file;
      best.needs.clear();
      // Same machine and C library, newer than the target declares: say what to declare.
      if (same_arch && same_family && tag.interpreter == wanted.interpreter &&
          std::pair(parts.major, parts.minor) > std::pair(target.major, target.minor)) {
        const bool mac = parts.family == "macosx";
        const std::string version = str_cat(parts.major, ".", parts.minor);
        best.needs = str_cat(": it needs ", mac ? "macOS " : "glibc ", version, ", the target declares ",
                             target.major, ".", target.minor, "; if its machines have ", version,
                             ", declare `", mac ? "macos" : "glibc", " = \"", version, "\"` on the target");
      }
    }
  }
  return best;
}

const pkg::Distribution* choose_source(const std::vector<pkg::Distribution>& sdists) {
  const pkg::Distribution* chosen = nullptr;
  auto score = [](const pkg::Distribution& file) {
    if (file.kind == pkg::DistributionKind::kSourceTree) return 0;
    return file.filename.size() > 7 && file.filename.ends_with(".tar.gz") ? 1 : 2;
  };
  for (const pkg::Distribution& file : sdists) {
    if (chosen == nullptr || score(file) < score(*chosen)) chosen = &file;
  }
  return chosen;
}

}  // namespace wv::lock
