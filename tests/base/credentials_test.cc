// The one credential rule (base/credentials.h) against every character RFC 3986 allows in
// user-info, and printable_text (base/str.h), the filter for a subprocess's text.
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "src/base/credentials.h"
#include "src/base/str.h"

using wv::redact_credentials;
using wv::strip_credentials;
using wv::carries_credentials;

TEST_CASE("credentials: every user-info character RFC 3986 allows is masked",
          "[base][hostile][credentials]") {
  // userinfo = *( unreserved / pct-encoded / sub-delims / ":" ); sub-delims = !$&'()*+,;=
  CHECK(redact_credentials("fetching `http://alice:pa'ss@127.0.0.1:1/simple/`: refused") ==
        "fetching `http://****@127.0.0.1:1/simple/`: refused");
  CHECK(redact_credentials("https://u:a!b$c&d'e(f)g*h+i,j;k=l@host/x") == "https://****@host/x");
  CHECK(redact_credentials("https://u:-._~@host/x") == "https://****@host/x");
  CHECK(redact_credentials("https://u:p%27w%40rd@host/x") == "https://****@host/x");
  CHECK(redact_credentials("https://u:pa:ss:word@host/x") == "https://****@host/x");
  CHECK(redact_credentials("https://us%40er:pw@host/x") == "https://****@host/x");
  CHECK(redact_credentials("https://TOKEN@host/x") == "https://****@host/x");
  // A raw `@` in the password (invalid, but typed): the last `@` ends the user-info.
  CHECK(redact_credentials("https://u:p@ss@host/x") == "https://****@host/x");
}

TEST_CASE("credentials: the host part and what follows are kept", "[base][hostile][credentials]") {
  CHECK(redact_credentials("http://u:p'w@[::1]:8080/simple/") == "http://****@[::1]:8080/simple/");
  CHECK(redact_credentials("http://u:p@[fe80::1%25eth0]/x") == "http://****@[fe80::1%25eth0]/x");
  CHECK(redact_credentials("https://u:p'w@host?q=1") == "https://****@host?q=1");
  CHECK(redact_credentials("https://u:p'w@host#frag") == "https://****@host#frag");
  // An `@` after the authority is not user-info.
  CHECK(redact_credentials("https://host/a@b") == "https://host/a@b");
  CHECK(redact_credentials("https://host?a=b@c") == "https://host?a=b@c");
  CHECK(redact_credentials("https://host#a@b") == "https://host#a@b");
  CHECK(redact_credentials("http://@host/") == "http://@host/");  // nothing to hide
  CHECK(redact_credentials("no url, user@example.org") == "no url, user@example.org");
}

TEST_CASE("credentials: a URL in prose, quoted or at the end of a sentence",
          "[base][hostile][credentials]") {
  CHECK(redact_credentials("see `https://u:p'w@h/x`.") == "see `https://****@h/x`.");
  CHECK(redact_credentials("see `https://u:p'w@h`.") == "see `https://****@h`.");
  CHECK(redact_credentials("url = \"https://u:p'w@h/simple\"") == "url = \"https://****@h/simple\"");
  CHECK(redact_credentials("url = \"https://u:p'w@h\"") == "url = \"https://****@h\"");
  CHECK(redact_credentials("url = 'https://u:p'w@h'") == "url = 'https://****@h'");
  CHECK(redact_credentials("(searched https://u:p'w@h, https://v:q@i).") ==
        "(searched https://****@h, https://****@i).");
  CHECK(redact_credentials("at https://u:p@h.\nnext") == "at https://****@h.\nnext");
  CHECK(redact_credentials("{\"url\":\"https://u:p'w@h/x\"}") == "{\"url\":\"https://****@h/x\"}");
  // Two URLs glued by a sub-delim: the second is found too.
  CHECK(redact_credentials("http://a@b,https://u:p'w@h/x") == "http://****@b,https://****@h/x");
  // An ssh account name is an address, kept in messages, locks and exports alike; a password
  // on an ssh URL is still a password.
  CHECK(redact_credentials("git+ssh://git@github.com:org/x.git") ==
        "git+ssh://git@github.com:org/x.git");
  CHECK(strip_credentials("ssh://git@github.com/org/x.git") == "ssh://git@github.com/org/x.git");
  CHECK_FALSE(carries_credentials("git+ssh://git@github.com/org/x.git"));
  CHECK(redact_credentials("git+ssh://git:pw@github.com/x") == "git+ssh://****@github.com/x");
  CHECK(carries_credentials("https://token@github.com/x"));
}

TEST_CASE("credentials: stripping uses the same rule", "[base][hostile][credentials]") {
  CHECK(strip_credentials("https://alice:it's@index.example/simple") ==
        "https://index.example/simple");
  CHECK(strip_credentials("https://u:a!b$c&d'e(f)g*h+i,j;k=l@h:8443/x#sha256=1") ==
        "https://h:8443/x#sha256=1");
  CHECK(strip_credentials("http://u:p@[::1]/x") == "http://[::1]/x");
  CHECK(strip_credentials("https://h/x") == "https://h/x");
}

TEST_CASE("credentials: masking is idempotent and never shows a password",
          "[base][hostile][credentials][fuzz]") {
  std::mt19937 random(23);
  const std::string alphabet = "ab:/@[]%'!$&()*+,;=`\" .hxS";
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    const std::size_t length = random() % 32;
    for (std::size_t i = 0; i < length; ++i) text.push_back(alphabet[random() % alphabet.size()]);
    const std::string once = redact_credentials(text);
    CHECK(redact_credentials(once) == once);
    // A planted password is gone whatever surrounds it.
    const std::string planted = redact_credentials(text + "http://u:SECRET'@h" + text);
    CHECK(planted.find("SECRET") == std::string::npos);
  }
}

TEST_CASE("printable text: terminal controls become visible escapes", "[base][hostile]") {
  CHECK(wv::printable_text("\x1b[31mred\x1b[0m") == "\\x1b[31mred\\x1b[0m");
  CHECK(wv::printable_text("\x1b]0;title\x07") == "\\x1b]0;title\\x07");
  CHECK(wv::printable_text("a\rb\bc\x7f") == "a\\x0db\\x08c\\x7f");
  CHECK(wv::printable_text(std::string("nul\0here", 8)) == "nul\\x00here");
  CHECK(wv::printable_text("\xc2\x9b" "2J") == "\\xc2\\x9b2J");  // C1 CSI, as UTF-8
  // Kept: newlines, tabs, UTF-8 text (a no-break space, an accent).
  CHECK(wv::printable_text("line\n\tindented") == "line\n\tindented");
  CHECK(wv::printable_text("caf\xc3\xa9\xc2\xa0x") == "caf\xc3\xa9\xc2\xa0x");
  CHECK(wv::printable_text("") == "");
}
