# SPDX-License-Identifier: MIT
# stallwatch_install_configured(TEMPLATE <file.in> RENAME <name> DESTINATION <dir>
#                               [COMPONENT <component>])
#
# Installs a file configured (@VAR@ only) when it is installed rather than
# when the build is configured, so that the paths it names follow the prefix
# given to `cmake --install --prefix` or used by CPack (/usr), not the one the
# build tree was configured with. DESTINATION is relative to that prefix
# (e.g. lib/pkgconfig) or one of the special values below.
#
# The template sees, besides PROJECT_VERSION and the GNUInstallDirs relative
# directories (CMAKE_INSTALL_BINDIR, CMAKE_INSTALL_LIBDIR, CMAKE_INSTALL_INCLUDEDIR):
#   STALLWATCH_PREFIX       the install prefix
#   STALLWATCH_SYSCONFDIR   /etc for the prefix /usr (as on Debian), else <prefix>/etc
#   STALLWATCH_UNITDIR      /lib/systemd/system for the prefix /usr (where Debian 12's
#                           packages put units), else <prefix>/lib/systemd/system
#   STALLWATCH_DAEMON_PATH  <prefix>/<bindir>/stallwatchd
#   STALLWATCH_CONFIG_FILE  <sysconfdir>/stallwatch/stallwatchd.toml
# DESTINATION may start with one of @SYSCONFDIR@ or @UNITDIR@ for those folders.

set(_sw_install_configured_script ${CMAKE_CURRENT_LIST_DIR}/install_configured.cmake)

function(stallwatch_install_configured)
  cmake_parse_arguments(ARG "" "TEMPLATE;RENAME;DESTINATION;COMPONENT" "" ${ARGN})
  if(NOT ARG_COMPONENT)
    set(ARG_COMPONENT Unspecified)
  endif()
  get_filename_component(_template ${ARG_TEMPLATE} ABSOLUTE)
  install(CODE "
    set(SW_TEMPLATE \"${_template}\")
    set(SW_OUTPUT \"${CMAKE_CURRENT_BINARY_DIR}/install-configured/${ARG_RENAME}\")
    set(SW_DESTINATION \"${ARG_DESTINATION}\")
    set(PROJECT_VERSION \"${PROJECT_VERSION}\")
    set(CMAKE_INSTALL_BINDIR \"${CMAKE_INSTALL_BINDIR}\")
    set(CMAKE_INSTALL_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
    set(CMAKE_INSTALL_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
    include(\"${_sw_install_configured_script}\")
  " COMPONENT ${ARG_COMPONENT})
endfunction()
