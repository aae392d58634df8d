# SPDX-License-Identifier: MIT
# Install-time half of stallwatch_install_configured() (StallwatchInstallConfigured.cmake):
# runs inside cmake_install.cmake, where CMAKE_INSTALL_PREFIX is the prefix
# being installed to. Configures SW_TEMPLATE to SW_OUTPUT and installs it to
# SW_DESTINATION (file(INSTALL) adds DESTDIR and records it in the manifest).

set(STALLWATCH_PREFIX "${CMAKE_INSTALL_PREFIX}")
if(STALLWATCH_PREFIX STREQUAL "/usr")
  set(STALLWATCH_SYSCONFDIR "/etc")
  set(STALLWATCH_UNITDIR "/lib/systemd/system")
else()
  set(STALLWATCH_SYSCONFDIR "${STALLWATCH_PREFIX}/etc")
  set(STALLWATCH_UNITDIR "${STALLWATCH_PREFIX}/lib/systemd/system")
endif()
set(STALLWATCH_DAEMON_PATH "${STALLWATCH_PREFIX}/${CMAKE_INSTALL_BINDIR}/stallwatchd")
set(STALLWATCH_CONFIG_FILE "${STALLWATCH_SYSCONFDIR}/stallwatch/stallwatchd.toml")

string(REPLACE "@SYSCONFDIR@" "${STALLWATCH_SYSCONFDIR}" _destination "${SW_DESTINATION}")
string(REPLACE "@UNITDIR@" "${STALLWATCH_UNITDIR}" _destination "${_destination}")
if(NOT IS_ABSOLUTE "${_destination}")
  set(_destination "${STALLWATCH_PREFIX}/${_destination}")
endif()

configure_file("${SW_TEMPLATE}" "${SW_OUTPUT}" @ONLY)
file(INSTALL DESTINATION "${_destination}" TYPE FILE FILES "${SW_OUTPUT}")
