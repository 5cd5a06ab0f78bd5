# cmake -DIN=file -DOUT=file.c -DNAME=symbol -P embed.cmake: a C file defining the bytes
# of IN as `const unsigned char NAME[]` and their count as `const size_t NAME_size`
# (a GPU kernel image that the library loads from memory).
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" digits)
math(EXPR bytes "${digits} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n" body "${body}")
file(WRITE ${OUT} "/* Generated from ${IN} by cmake/embed.cmake. */\n#include <stddef.h>\n"
  "__attribute__((aligned(16))) const unsigned char ${NAME}[] = {\n${body}\n};\n"
  "const size_t ${NAME}_size = ${bytes};\n")
