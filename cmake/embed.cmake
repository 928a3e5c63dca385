# Writes the bytes of IN as a C array named NAME (with NAME_len) to OUT, so
# that a file made at build time, such as the BPF object of vernier trace,
# is part of the program and needs no path at run time.
# Usage: cmake -DIN=file -DOUT=file.c -DNAME=symbol -P embed.cmake
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" nhex)
math(EXPR n "${nhex} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
# Lines of 16 bytes, so the file stays readable in a debugger.
string(REGEX REPLACE "((0x..,){16})" "\\1\n" bytes "${bytes}")
file(WRITE ${OUT}.tmp "/* Made from ${IN} by cmake/embed.cmake. */\n#include <stddef.h>\n\n"
  "extern const unsigned char ${NAME}[];\nextern const size_t ${NAME}_len;\n"
  "__attribute__((aligned(8))) const unsigned char ${NAME}[] = {\n${bytes}\n};\n"
  "const size_t ${NAME}_len = ${n};\n")
file(RENAME ${OUT}.tmp ${OUT})
