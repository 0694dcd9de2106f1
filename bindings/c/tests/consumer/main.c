/* A program using an installed boltcodec (see CMakeLists.txt next to it). */
#include <boltcodec.h>
#include <stdio.h>

int main(void) {
    bc_encoder *enc;
    bc_decoder *dec;
    if (bc_encoder_new(&enc) != BC_OK || bc_decoder_new(&dec) != BC_OK) return 1;
    bc_encoder_write_list_header(enc, 2);
    bc_encoder_write_int(enc, 42);
    bc_encoder_write_string(enc, "hello", 5);
    const uint8_t *bytes;
    size_t len;
    bc_encoder_data(enc, &bytes, &len);
    const bc_value *v;
    int ok = bc_decoder_decode(dec, bytes, len, &v) == BC_OK && v->len == 2 &&
             v->data.items[0].data.i == 42;
    printf("consumer (boltcodec %s): %s\n", bc_library_version(), ok ? "ok" : "FAILED");
    bc_decoder_free(dec);
    bc_encoder_free(enc);
    return ok ? 0 : 1;
}
