// Ranges<V>: a set of versions as a sorted union of disjoint, non-adjacent intervals over
// any totally ordered version type (pubgrub-rs `version-ranges`, reference
// solver-and-formats.md §1.7).
// Cheap to include: standard headers only. A set of one interval (the common case) is stored
// inline, without a heap allocation.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace wv::solver {

/// One end of an interval. An unbounded end ignores `value`.
template <class V>
struct Bound {
  enum class Kind : unsigned char { kUnbounded, kIncluded, kExcluded };
  Kind kind = Kind::kUnbounded;
  V value{};

  static Bound unbounded() { return Bound{}; }
  static Bound included(V v) { return Bound{Kind::kIncluded, std::move(v)}; }
  static Bound excluded(V v) { return Bound{Kind::kExcluded, std::move(v)}; }
  bool is_unbounded() const { return kind == Kind::kUnbounded; }
  bool is_included() const { return kind == Kind::kIncluded; }
  friend bool operator==(const Bound& a, const Bound& b) {
    if (a.kind != b.kind) return false;
    return a.kind == Kind::kUnbounded || a.value == b.value;
  }
};

/// A set of versions of V. V needs a default constructor, `<`, `==` and copying; printing
/// (to_string, operator<<) also needs `operator<<(std::ostream&, const V&)`.
///
/// The space is treated as continuous, as in pubgrub-rs: `[3,7)` and `[3,6]` differ even if
/// no version lies between 6 and 7. Representations are canonical (sorted, every segment
/// non-empty, a gap between any two segments), so `==` is set equality.
template <class V>
class Ranges {
 public:
  using Version = V;
  struct Segment {
    Bound<V> lower;
    Bound<V> upper;
    friend bool operator==(const Segment& a, const Segment& b) {
      return a.lower == b.lower && a.upper == b.upper;
    }
  };

  /// The empty set.
  Ranges() = default;
  /// The empty set.
  static Ranges empty() { return Ranges(); }
  /// Every version.
  static Ranges full() { return from_segment(Bound<V>::unbounded(), Bound<V>::unbounded()); }
  /// Exactly `v`.
  static Ranges singleton(V v) {
    return from_segment(Bound<V>::included(v), Bound<V>::included(v));
  }
  /// `>= v`.
  static Ranges higher_than(V v) {
    return from_segment(Bound<V>::included(std::move(v)), Bound<V>::unbounded());
  }
  /// `> v`.
  static Ranges strictly_higher_than(V v) {
    return from_segment(Bound<V>::excluded(std::move(v)), Bound<V>::unbounded());
  }
  /// `<= v`.
  static Ranges lower_than(V v) {
    return from_segment(Bound<V>::unbounded(), Bound<V>::included(std::move(v)));
  }
  /// `< v`.
  static Ranges strictly_lower_than(V v) {
    return from_segment(Bound<V>::unbounded(), Bound<V>::excluded(std::move(v)));
  }
  /// `>= low, < high` (empty when high <= low).
  static Ranges between(V low, V high) {
    return from_segment(Bound<V>::included(std::move(low)), Bound<V>::excluded(std::move(high)));
  }
  /// The interval between two arbitrary bounds (empty when it holds nothing).
  static Ranges from_segment(Bound<V> lower, Bound<V> upper) {
    Ranges r;
    if (valid(lower, upper)) r.segments_.push_back(Segment{std::move(lower), std::move(upper)});
    return r;
  }

  /// True for the empty set.
  bool is_empty() const { return segments_.empty(); }
  /// True for the set of every version.
  bool is_full() const {
    return segments_.size() == 1 && segments_[0].lower.is_unbounded() &&
           segments_[0].upper.is_unbounded();
  }
  /// The single version of a singleton set, or nullptr.
  const V* as_singleton() const {
    if (segments_.size() != 1) return nullptr;
    const Segment& s = segments_[0];
    if (s.lower.is_included() && s.upper.is_included() && s.lower.value == s.upper.value) {
      return &s.lower.value;
    }
    return nullptr;
  }
  /// The intervals, sorted.
  std::span<const Segment> segments() const { return {segments_.data(), segments_.size()}; }

  /// True when `v` lies in the set (binary search over the segments).
  bool contains(const V& v) const {
    // The first segment whose upper bound is not below v is the only candidate.
    auto it = std::partition_point(segments_.begin(), segments_.end(),
                                   [&](const Segment& s) { return !below_upper(v, s.upper); });
    return it != segments_.end() && above_lower(v, it->lower);
  }

  /// Every version not in the set.
  Ranges complement() const {
    Ranges out;
    if (segments_.empty()) return full();
    Bound<V> start = Bound<V>::unbounded();
    for (const Segment& s : segments_) {
      if (!s.lower.is_unbounded()) out.segments_.push_back(Segment{start, flip(s.lower)});
      if (s.upper.is_unbounded()) return out;
      start = flip(s.upper);
    }
    out.segments_.push_back(Segment{std::move(start), Bound<V>::unbounded()});
    return out;
  }

  /// Versions in both sets (a linear merge).
  Ranges intersection(const Ranges& other) const {
    Ranges out;
    std::size_t i = 0, j = 0;
    while (i < segments_.size() && j < other.segments_.size()) {
      const Segment& a = segments_[i];
      const Segment& b = other.segments_[j];
      const Bound<V>& lower = lower_less(a.lower, b.lower) ? b.lower : a.lower;
      bool a_ends_first = upper_less(a.upper, b.upper);
      const Bound<V>& upper = a_ends_first ? a.upper : b.upper;
      if (valid(lower, upper)) out.segments_.push_back(Segment{lower, upper});
      if (a_ends_first) {
        ++i;
      } else {
        ++j;
      }
    }
    return out;
  }

  /// Versions in either set (a linear merge).
  Ranges union_with(const Ranges& other) const {
    if (other.segments_.empty()) return *this;
    if (segments_.empty()) return other;
    Ranges out;
    std::size_t i = 0, j = 0;
    while (i < segments_.size() || j < other.segments_.size()) {
      const Segment* next;
      if (j >= other.segments_.size() ||
          (i < segments_.size() && !lower_less(other.segments_[j].lower, segments_[i].lower))) {
        next = &segments_[i++];
      } else {
        next = &other.segments_[j++];
      }
      if (!out.segments_.empty() && touches(out.segments_.back().upper, next->lower)) {
        Bound<V>& upper = out.segments_.back().upper;
        if (upper_less(upper, next->upper)) upper = next->upper;
      } else {
        out.segments_.push_back(*next);
      }
    }
    return out;
  }

  /// True when every version of this set is in `other`.
  bool subset_of(const Ranges& other) const {
    // Each of our segments must fit in one segment of `other` (segments of `other` have gaps).
    std::size_t j = 0;
    for (const Segment& s : segments_) {
      while (j < other.segments_.size() && !valid(s.lower, other.segments_[j].upper)) ++j;
      if (j == other.segments_.size()) return false;
      const Segment& o = other.segments_[j];
      if (lower_less(s.lower, o.lower) || upper_less(o.upper, s.upper)) return false;
    }
    return true;
  }

  /// True when no version is in both sets.
  bool is_disjoint(const Ranges& other) const {
    std::size_t i = 0, j = 0;
    while (i < segments_.size() && j < other.segments_.size()) {
      const Segment& a = segments_[i];
      const Segment& b = other.segments_[j];
      const Bound<V>& lower = lower_less(a.lower, b.lower) ? b.lower : a.lower;
      bool a_ends_first = upper_less(a.upper, b.upper);
      if (valid(lower, a_ends_first ? a.upper : b.upper)) return false;
      if (a_ends_first) {
        ++i;
      } else {
        ++j;
      }
    }
    return true;
  }

  friend bool operator==(const Ranges& a, const Ranges& b) { return a.segments_ == b.segments_; }

  /// Text like `>=1.0 <2.0`, `==1.5`, `<1.0 | >=2.0`, `*` (every version), `∅` (none).
  friend std::ostream& operator<<(std::ostream& out, const Ranges& r) {
    if (r.segments_.empty()) return out << "\xE2\x88\x85";  // ∅
    bool first = true;
    for (const Segment& s : r.segments_) {
      if (!first) out << " | ";
      first = false;
      const Bound<V>& lo = s.lower;
      const Bound<V>& hi = s.upper;
      if (lo.is_unbounded() && hi.is_unbounded()) {
        out << "*";
      } else if (lo.is_included() && hi.is_included() && lo.value == hi.value) {
        out << "==" << lo.value;
      } else if (lo.is_unbounded()) {
        out << (hi.is_included() ? "<=" : "<") << hi.value;
      } else if (hi.is_unbounded()) {
        out << (lo.is_included() ? ">=" : ">") << lo.value;
      } else {
        out << (lo.is_included() ? ">=" : ">") << lo.value << " " << (hi.is_included() ? "<=" : "<")
            << hi.value;
      }
    }
    return out;
  }

  /// The same text as operator<<.
  std::string to_string() const {
    std::ostringstream out;
    out << *this;
    return out.str();
  }

 private:
  using Kind = typename Bound<V>::Kind;

  // v >= lower bound.
  static bool above_lower(const V& v, const Bound<V>& b) {
    switch (b.kind) {
      case Kind::kUnbounded:
        return true;
      case Kind::kIncluded:
        return !(v < b.value);
      case Kind::kExcluded:
        return b.value < v;
    }
    return false;
  }
  // v <= upper bound.
  static bool below_upper(const V& v, const Bound<V>& b) {
    switch (b.kind) {
      case Kind::kUnbounded:
        return true;
      case Kind::kIncluded:
        return !(b.value < v);
      case Kind::kExcluded:
        return v < b.value;
    }
    return false;
  }
  // Lower bound a starts strictly before lower bound b.
  static bool lower_less(const Bound<V>& a, const Bound<V>& b) {
    if (b.is_unbounded()) return false;
    if (a.is_unbounded()) return true;
    if (a.value < b.value) return true;
    if (b.value < a.value) return false;
    return a.is_included() && !b.is_included();
  }
  // Upper bound a ends strictly before upper bound b.
  static bool upper_less(const Bound<V>& a, const Bound<V>& b) {
    if (a.is_unbounded()) return false;
    if (b.is_unbounded()) return true;
    if (a.value < b.value) return true;
    if (b.value < a.value) return false;
    return !a.is_included() && b.is_included();
  }
  // The interval [lower, upper] holds at least one point of the continuous space.
  static bool valid(const Bound<V>& lower, const Bound<V>& upper) {
    if (lower.is_unbounded() || upper.is_unbounded()) return true;
    if (lower.value < upper.value) return true;
    if (upper.value < lower.value) return false;
    return lower.is_included() && upper.is_included();
  }
  // An upper bound followed by a lower bound leave no gap (so the segments merge).
  static bool touches(const Bound<V>& upper, const Bound<V>& lower) {
    if (upper.is_unbounded() || lower.is_unbounded()) return true;
    if (lower.value < upper.value) return true;
    if (upper.value < lower.value) return false;
    return upper.is_included() || lower.is_included();
  }
  // The complementary bound: an included end becomes excluded and the reverse.
  static Bound<V> flip(const Bound<V>& b) {
    return b.is_included() ? Bound<V>::excluded(b.value) : Bound<V>::included(b.value);
  }

  // A vector with room for one segment inline: most version sets are a single interval, and
  // they are copied often (terms, accumulated intersections).
  class SegmentList {
   public:
    std::size_t size() const { return heap_.empty() ? count_ : heap_.size(); }
    bool empty() const { return size() == 0; }
    const Segment* data() const { return heap_.empty() ? &inline_ : heap_.data(); }
    Segment* data() { return heap_.empty() ? &inline_ : heap_.data(); }
    const Segment* begin() const { return data(); }
    const Segment* end() const { return data() + size(); }
    const Segment& operator[](std::size_t i) const { return data()[i]; }
    Segment& back() { return data()[size() - 1]; }
    const Segment& back() const { return data()[size() - 1]; }
    void reserve(std::size_t n) {
      if (n > 1 && heap_.empty()) {
        heap_.reserve(n);
        if (count_ == 1) heap_.push_back(std::move(inline_));
        count_ = 0;
      }
    }
    void push_back(Segment s) {
      if (heap_.empty() && count_ == 0 && heap_.capacity() == 0) {
        inline_ = std::move(s);
        count_ = 1;
        return;
      }
      if (heap_.empty() && count_ == 1) {
        heap_.reserve(4);
        heap_.push_back(std::move(inline_));
        count_ = 0;
      }
      heap_.push_back(std::move(s));
    }
    friend bool operator==(const SegmentList& a, const SegmentList& b) {
      return std::equal(a.begin(), a.end(), b.begin(), b.end());
    }

   private:
    // Invariant: when heap_ is empty, count_ (0 or 1) segments live in inline_; otherwise all
    // of them live in heap_ and count_ is 0. A reserved but empty heap_ takes pushes itself.
    Segment inline_{};
    std::uint8_t count_ = 0;
    std::vector<Segment> heap_;
  };

  SegmentList segments_;
};

}  // namespace wv::solver
