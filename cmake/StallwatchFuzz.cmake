# SPDX-License-Identifier: MIT
# stallwatch_fuzz_target(NAME SOURCES ... LIBRARIES ... SEEDS ...): one
# libFuzzer target (a file defining LLVMFuzzerTestOneInput) and its test,
# label fuzz. SEEDS are files or folders of seed inputs (tests/data).
#   - fuzz preset (STALLWATCH_BUILD_FUZZ, clang): linked with libFuzzer; the
#     test `fuzz.NAME` fuzzes for STALLWATCH_FUZZ_SECONDS_EACH seconds from
#     the seeds, keeping what it finds in a corpus folder of the build.
#   - default build (tests on, any compiler): linked with
#     tests/support/fuzz_corpus_main.cc; the test `fuzz.NAME.seeds` runs the
#     target once over every seed, under the sanitizers the build has.
set(STALLWATCH_FUZZ_SECONDS_EACH 5 CACHE STRING "How long each fuzz.* test fuzzes (fuzz preset)")

function(stallwatch_fuzz_target name)
  cmake_parse_arguments(F "" "" "SOURCES;LIBRARIES;SEEDS;ARGS" ${ARGN})
  if(STALLWATCH_BUILD_FUZZ)
    add_executable(${name} ${F_SOURCES})
    target_link_libraries(${name} PRIVATE ${F_LIBRARIES})
    target_link_options(${name} PRIVATE -fsanitize=fuzzer)
    set(_corpus ${CMAKE_CURRENT_BINARY_DIR}/${name}_corpus)
    file(MAKE_DIRECTORY ${_corpus})
    add_test(NAME fuzz.${name}
      COMMAND ${name} -max_total_time=${STALLWATCH_FUZZ_SECONDS_EACH} -rss_limit_mb=2048
        -print_final_stats=1 ${F_ARGS} ${_corpus} ${F_SEEDS})
    set_tests_properties(fuzz.${name} PROPERTIES LABELS fuzz TIMEOUT 300)
  elseif(STALLWATCH_BUILD_TESTS)
    add_executable(${name} ${F_SOURCES} ${PROJECT_SOURCE_DIR}/tests/support/fuzz_corpus_main.cc)
    target_link_libraries(${name} PRIVATE ${F_LIBRARIES})
    add_test(NAME fuzz.${name}.seeds COMMAND ${name} ${F_SEEDS})
    set_tests_properties(fuzz.${name}.seeds PROPERTIES LABELS fuzz TIMEOUT 120)
  endif()
endfunction()
