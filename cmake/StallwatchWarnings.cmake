# SPDX-License-Identifier: MIT
# The project's compiler warnings, in one place: every target defined in this
# project gets them (add_compile_options in the top directory); a project that
# consumes stallwatch as a subproject does not. The presets add only
# sanitizers and build types. STALLWATCH_WARNINGS_AS_ERRORS (on in developer
# mode) makes them errors.

set(_sw_c_warnings -Wall -Wextra -Wpedantic -Wshadow)
set(_sw_cxx_warnings ${_sw_c_warnings} -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual)
if(STALLWATCH_WARNINGS_AS_ERRORS)
  list(APPEND _sw_c_warnings -Werror)
  list(APPEND _sw_cxx_warnings -Werror)
endif()
# GCC 12 at -O3 reports std::string copies it cannot prove apart
# (-Wrestrict false positives in libstdc++'s headers).
list(APPEND _sw_cxx_warnings $<$<AND:$<CXX_COMPILER_ID:GNU>,$<CONFIG:Release>>:-Wno-restrict>)

add_compile_options(
  "$<$<COMPILE_LANGUAGE:C>:${_sw_c_warnings}>"
  "$<$<COMPILE_LANGUAGE:CXX>:${_sw_cxx_warnings}>")
