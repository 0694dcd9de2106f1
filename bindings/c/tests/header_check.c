/* The header compiles warning-free as C11 with -Wall -Wextra -pedantic -Werror, and a
 * C program links against the library. Prints `1 passed, 0 failed` on success. */
#include "boltcodec.h"

#include <stdio.h>

int main(void) {
    bc_decoder *dec = NULL;
    const bc_value *v = NULL;
    const uint8_t one[] = {0x01};
    int ok = bc_decoder_new(&dec) == BC_OK && bc_decoder_decode(dec, one, 1, &v) == BC_OK &&
             v->kind == BC_TYPE_INT && v->data.i == 1 && sizeof(bc_value) == 16;
    bc_decoder_free(dec);
    printf("%d passed, %d failed\n", ok, !ok);
    return ok ? 0 : 1;
}
