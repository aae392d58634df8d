# SPDX-License-Identifier: MIT
# Turns the dashboard's files into one C++ source holding each file as a char
# array (character literals, not one string literal: clang -Wpedantic rejects
# string literals over 64 KiB), plus the table that find_web_asset() searches.
# Run at build time: cmake -DMANIFEST=<file> -DOUTPUT=<file.cc> -P embed_web_assets.cmake
# MANIFEST has one "<url path>|<absolute file>" per line.
cmake_minimum_required(VERSION 3.25)

if(NOT DEFINED MANIFEST OR NOT DEFINED OUTPUT)
  message(FATAL_ERROR "embed_web_assets: pass -DMANIFEST=<file> -DOUTPUT=<file.cc>")
endif()

function(content_type_for url_path out)
  get_filename_component(ext "${url_path}" LAST_EXT)
  string(TOLOWER "${ext}" ext)
  if(ext STREQUAL ".html")
    set(type "text/html; charset=utf-8")
  elseif(ext STREQUAL ".js")
    set(type "text/javascript; charset=utf-8")
  elseif(ext STREQUAL ".css")
    set(type "text/css; charset=utf-8")
  elseif(ext STREQUAL ".svg")
    set(type "image/svg+xml")
  elseif(ext STREQUAL ".json")
    set(type "application/json")
  elseif(ext STREQUAL ".txt")
    set(type "text/plain; charset=utf-8")
  else()
    message(FATAL_ERROR "embed_web_assets: no content type known for '${url_path}'")
  endif()
  set(${out} "${type}" PARENT_SCOPE)
endfunction()

# 16 bytes per source line: each byte becomes the 7 characters '\xHH',
string(REPEAT "." 112 line_pattern)

file(STRINGS "${MANIFEST}" entries)
set(literals "")
set(rows "")
set(index 0)
foreach(entry IN LISTS entries)
  string(FIND "${entry}" "|" bar)
  if(bar LESS 1)
    message(FATAL_ERROR "embed_web_assets: bad manifest line '${entry}'")
  endif()
  string(SUBSTRING "${entry}" 0 ${bar} url_path)
  math(EXPR file_begin "${bar} + 1")
  string(SUBSTRING "${entry}" ${file_begin} -1 file)
  if(NOT EXISTS "${file}")
    message(FATAL_ERROR "embed_web_assets: '${file}' does not exist")
  endif()
  content_type_for("${url_path}" type)

  file(READ "${file}" hex HEX)
  string(LENGTH "${hex}" digits)
  math(EXPR size "${digits} / 2")
  if(size EQUAL 0)
    set(bytes "'\\0'")
  else()
    string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
    string(REGEX REPLACE "(${line_pattern})" "\\1\n    " bytes "${bytes}")
  endif()

  string(APPEND literals "// ${url_path}\nconstexpr char kAsset${index}[] = {\n    ${bytes}};\n\n")
  string(APPEND rows "    {\"${url_path}\", {kAsset${index}, ${size}}, \"${type}\"},\n")
  math(EXPR index "${index} + 1")
endforeach()

if(index EQUAL 0)
  message(FATAL_ERROR "embed_web_assets: the manifest lists no files")
endif()

set(source "// Generated at build time by dashboard/web/cmake/embed_web_assets.cmake from
// the dashboard page files; edit those, not this.
#include \"web_assets_table.h\"

namespace stallwatch::collector::detail {

namespace {

${literals}constexpr WebAsset kAssets[] = {
${rows}};

}  // namespace

std::span<const WebAsset> embedded_web_assets() { return kAssets; }

}  // namespace stallwatch::collector::detail
")

file(WRITE "${OUTPUT}" "${source}")
