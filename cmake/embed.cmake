# Embeds an OpenCL C source file into a C++ translation unit as a string.
# Usage: cmake -DIN=file.cl -DOUT=file.cpp -DNAME=symbol -P embed.cmake
file(READ "${IN}" text)
file(WRITE "${OUT}" "// Generated from ${IN}; do not edit.\nnamespace pscr::kernels {\nextern const char* const ${NAME};\nconst char* const ${NAME} = R\"PSCRCL(${text})PSCRCL\";\n}\n")
