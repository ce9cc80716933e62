#include "lock/wheel_choice.h"

#include <algorithm>

#include "base/str.h"

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
      choice.unavailable_reason =
          str_cat("no wheel for target ", target.name, ": no ", subject, " wheel matches ",
                  best_tag.interpreter, " ", best_tag.platform, " (has ",
                  wheels.front().filename, wheels.size() > 1 ? ", ..." : "", ")");
    } else {
      choice.unavailable_reason = str_cat("no wheel for target ", target.name, ": every ",
                                          subject, " wheel for this platform needs what the ",
                                          "target lacks: ", first_variant_failure);
    }
  }
  return choice;
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
