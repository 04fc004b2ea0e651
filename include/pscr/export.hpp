/// @file
/// Symbols of the public API: the library is built with hidden visibility and
/// exports only what is marked here.
#pragma once
/// PSCR_API marks a declaration exported from the shared library.
#if defined(_WIN32)
#define PSCR_API
#else
#define PSCR_API __attribute__((visibility("default")))
#endif
