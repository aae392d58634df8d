# SPDX-License-Identifier: MIT
# Writes a help2man include file (-DOUTPUT) with a COMMANDS section holding
# `PROGRAM <command> --help` for each of -DCOMMANDS (comma-separated), so
# that the man page shows each subcommand's own --help text.
string(REPLACE "," ";" _commands "${COMMANDS}")
set(_text "[COMMANDS]\n")
foreach(_command IN LISTS _commands)
  execute_process(COMMAND ${PROGRAM} ${_command} --help
    OUTPUT_VARIABLE _help ERROR_VARIABLE _help RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${PROGRAM} ${_command} --help exited with ${_rc}: ${_help}")
  endif()
  string(REPLACE "\\" "\\e" _help "${_help}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" _help "${_help}")
  string(STRIP "${_help}" _help)
  get_filename_component(_name ${PROGRAM} NAME)
  string(APPEND _text ".SS \"${_name} ${_command}\"\n.nf\n${_help}\n.fi\n")
endforeach()
file(WRITE ${OUTPUT} "${_text}")
