// The header compiles warning-free as C++17 with -Wall -Wextra -pedantic -Werror, and a
// C++ program links against the library. Prints `1 passed, 0 failed` on success.
#include "boltcodec.h"

#include <cstdio>
#include <memory>
#include <string_view>

namespace {
struct DecoderDeleter {
    void operator()(bc_decoder *d) const noexcept { bc_decoder_free(d); }
};
using Decoder = std::unique_ptr<bc_decoder, DecoderDeleter>;
}  // namespace

int main() {
    bc_decoder *raw = nullptr;
    if (bc_decoder_new(&raw) != BC_OK) return 1;
    Decoder dec(raw);
    const uint8_t bytes[] = {0x83, 'a', 'b', 'c'};
    const bc_value *v = nullptr;
    const char *s = nullptr;
    size_t len = 0;
    bool ok = bc_decoder_decode(dec.get(), bytes, sizeof bytes, &v) == BC_OK &&
              bc_value_as_string(v, &s, &len) == BC_OK && std::string_view(s, len) == "abc" &&
              sizeof(bc_value) == 16;
    std::printf("%d passed, %d failed\n", ok ? 1 : 0, ok ? 0 : 1);
    return ok ? 0 : 1;
}
