/* The call decoders of base/routine.c, which name a routine that left no frame of its
 * own (a tail call) for the blocked-routine report and error messages: machine code
 * for a call through a PLT stub, a direct call and no call, laid out by hand for each
 * instruction set and decoded on any machine. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/routine.h"

static int failures;
#define CHECK(c)                                                                             \
    do {                                                                                     \
        if (!(c)) {                                                                          \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);                              \
            failures++;                                                                      \
        }                                                                                    \
    } while (0)

static void put32(unsigned char *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static void x86_64(unsigned char *buf, const void *target)
{
    /* call stub at 0x100 (returns to 0x105); the stub at 0x200: endbr64, bnd jmp
     * *slot(%rip) with the slot at 0x300. */
    buf[0x100] = 0xe8;
    put32(buf + 0x101, 0x200 - 0x105);
    memcpy(buf + 0x200, "\xf3\x0f\x1e\xfa\xf2\xff\x25", 7);
    put32(buf + 0x207, 0x300 - 0x20b);
    memcpy(buf + 0x300, &target, sizeof target);
    CHECK(shoal_call_target_x86_64(buf + 0x105) == target);
    /* A direct call backwards, to 0x40: the routine itself. */
    buf[0x180] = 0xe8;
    put32(buf + 0x181, (uint32_t)(0x40 - 0x185));
    CHECK(shoal_call_target_x86_64(buf + 0x185) == buf + 0x40);
    /* Not a call. */
    buf[0x1f0] = 0x90;
    CHECK(shoal_call_target_x86_64(buf + 0x1f5) == NULL);
}

static void aarch64(unsigned char *buf, const void *target)
{
    /* Three pages. bl at page 0 + 0x100 to the stub at page 1 + 0x10: bti c;
     * adrp x16, +1 page; ldr x17, [x16, #0x18]; the slot at page 2 + 0x18. */
    put32(buf + 0x100, 0x94000000u | ((0x1010 - 0x100) / 4));
    put32(buf + 0x1010, 0xd503245f);
    put32(buf + 0x1014, 0x90000010u | (1u << 29));
    put32(buf + 0x1018, 0xf9400211u | (3u << 10));
    memcpy(buf + 0x2018, &target, sizeof target);
    CHECK(shoal_call_target_aarch64(buf + 0x104) == target);
    /* The stub one page below its slot's page, reached by a bl backwards from page 2:
     * adrp x16, +1 page (immlo 1) from page 1 again. */
    put32(buf + 0x2100, 0x94000000u | ((uint32_t)((0x1010 - 0x2100) / 4) & 0x3ffffff));
    CHECK(shoal_call_target_aarch64(buf + 0x2104) == target);
    /* A bl straight to a routine (no adrp/ldr there). */
    put32(buf + 0x200, 0x94000000u | ((0x400 - 0x200) / 4));
    put32(buf + 0x400, 0xd10043ff); /* sub sp, sp, #16 */
    CHECK(shoal_call_target_aarch64(buf + 0x204) == buf + 0x400);
    /* Not a bl. */
    put32(buf + 0x300, 0xd503201f); /* nop */
    CHECK(shoal_call_target_aarch64(buf + 0x304) == NULL);
}

int main(void)
{
    static int routine; /* stands for the routine the GOT slot points to */
    unsigned char *buf = aligned_alloc(4096, 3 * 4096);
    if (!buf)
        return 1;
    memset(buf, 0, 3 * 4096);
    x86_64(buf, &routine);
    memset(buf, 0, 3 * 4096);
    aarch64(buf, &routine);
    free(buf);
    if (failures)
        return 1;
    printf("test_routine: OK\n");
    return 0;
}
