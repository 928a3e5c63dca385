/* Structs that grow: a public struct the caller allocates carries its own
 * size as its first member (size_t size, set by its _init function), so a
 * program built against an older vernier.h keeps working with a newer
 * library. Private to the library. */
#ifndef VN_ABI_H
#define VN_ABI_H

#include <stddef.h>

/* The size of a struct's first layout with a size member: through the end
 * of its last field then. Sizes below it were never handed out. */
#define VN__SIZE_THROUGH(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

/* Copies the caller's struct src over dst, which holds the defaults (from
 * the struct's _init) in this library's layout of max bytes: only the bytes
 * the caller's size covers, so the fields its header did not have keep
 * their defaults. 0, or VN_EABI (dst untouched) for a size that no _init
 * set: below min, above max (a newer header than this library), or not a
 * multiple of the size member's alignment. */
int vn__abi_copy(void *dst, size_t max, const void *src, size_t min);

#endif
