# SPDX-License-Identifier: MIT
# Copies the wire schema with its namespace renamed, so the Python code flatc
# generates for the tests (package `swtest.wire`) cannot collide with the
# `stallwatch` package under test. Called with -DIN=<fbs> -DOUT=<fbs>.
file(READ ${IN} _schema)
string(REPLACE "namespace stallwatch.wire;" "namespace swtest.wire;" _schema "${_schema}")
if(NOT _schema MATCHES "namespace swtest.wire;")
  message(FATAL_ERROR "rename_namespace: 'namespace stallwatch.wire;' not found in ${IN}")
endif()
file(WRITE ${OUT} "${_schema}")
