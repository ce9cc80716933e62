#include "src/pkg/upload_time.h"

#include <cstdint>
#include <cstdio>

#include "src/base/str.h"

namespace wv::pkg {
namespace {

// Reads exactly `count` digits at `at`.
std::optional<int> digits(std::string_view text, std::size_t at, std::size_t count) {
  if (at + count > text.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (!is_ascii_digit(text[i])) return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

bool is_leap(std::int64_t year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int days_in_month(std::int64_t year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap(year) ? 29 : kDays[month - 1];
}

// Days since 1970-01-01 of a proleptic Gregorian date, and back (H. Hinnant's algorithms).
std::int64_t days_from_civil(std::int64_t year, int month, int day) {
  year -= month <= 2;
  const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
  const std::int64_t year_of_era = year - era * 400;
  const std::int64_t day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const std::int64_t day_of_era =
      year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

void civil_from_days(std::int64_t days, std::int64_t& year, int& month, int& day) {
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const std::int64_t day_of_era = days - era * 146097;
  const std::int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const std::int64_t day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const std::int64_t shifted_month = (5 * day_of_year + 2) / 153;
  day = int(day_of_year - (153 * shifted_month + 2) / 5 + 1);
  month = int(shifted_month < 10 ? shifted_month + 3 : shifted_month - 9);
  year = year_of_era + era * 400 + (month <= 2);
}

}  // namespace

std::optional<std::string> normalize_upload_time(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS: 19 characters before the fraction and the offset.
  auto year = digits(text, 0, 4), month = digits(text, 5, 2), day = digits(text, 8, 2);
  auto hour = digits(text, 11, 2), minute = digits(text, 14, 2), second = digits(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
  if (text[4] != '-' || text[7] != '-' || text[13] != ':' || text[16] != ':') return std::nullopt;
  if (text[10] != 'T' && text[10] != 't' && text[10] != ' ') return std::nullopt;
  if (*month < 1 || *month > 12 || *day < 1 || *day > days_in_month(*year, *month) ||
      *hour > 23 || *minute > 59 || *second > 59) {
    return std::nullopt;
  }
  std::size_t at = 19;
  std::string fraction;
  if (at < text.size() && text[at] == '.') {
    ++at;
    while (at < text.size() && is_ascii_digit(text[at])) {
      if (fraction.size() < 9) fraction += text[at];
      ++at;
    }
    if (fraction.empty()) return std::nullopt;
    while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  }
  if (at >= text.size()) return std::nullopt;  // a local time: no instant
  int offset_minutes = 0;
  if (text[at] == 'Z' || text[at] == 'z') {
    ++at;
  } else if (text[at] == '+' || text[at] == '-') {
    auto offset_hour = digits(text, at + 1, 2), offset_minute = digits(text, at + 4, 2);
    if (!offset_hour || !offset_minute || at + 3 >= text.size() || text[at + 3] != ':' ||
        *offset_hour > 23 || *offset_minute > 59) {
      return std::nullopt;
    }
    offset_minutes = (*offset_hour * 60 + *offset_minute) * (text[at] == '-' ? -1 : 1);
    at += 6;
  } else {
    return std::nullopt;
  }
  if (at != text.size()) return std::nullopt;
  // Local time minus its offset is UTC.
  std::int64_t minutes = days_from_civil(*year, *month, *day) * 1440 + *hour * 60 + *minute -
                         offset_minutes;
  std::int64_t days = minutes >= 0 ? minutes / 1440 : -((-minutes + 1439) / 1440);
  const std::int64_t in_day = minutes - days * 1440;
  std::int64_t utc_year = 0;
  int utc_month = 0, utc_day = 0;
  civil_from_days(days, utc_year, utc_month, utc_day);
  if (utc_year < 0 || utc_year > 9999) return std::nullopt;
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d", int(utc_year), utc_month,
                utc_day, int(in_day / 60), int(in_day % 60), *second);
  std::string out = buffer;
  if (!fraction.empty()) out += "." + fraction;
  return out + "Z";
}

}  // namespace wv::pkg
