# Run at install time (install(SCRIPT) from cmake/install.cmake), when the real prefix is known:
# `cmake --install --prefix DIR` or CPack's /usr. Installs the example config as the config and the
# systemd unit naming the installed binary and config. With the prefix /usr (the .deb) the config is
# /etc/cuzk/cuzk.toml, as Debian wants; otherwise <prefix>/etc/cuzk/cuzk.toml.
# In: CUZK_SOURCE_DIR (set by install(CODE) just before). DESTDIR is honoured (CPack stages with it).
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(CUZK_CONF_DIR /etc/cuzk)
else()
  set(CUZK_CONF_DIR ${CMAKE_INSTALL_PREFIX}/etc/cuzk)
endif()
set(CUZK_BIN_DIR ${CMAKE_INSTALL_PREFIX}/bin)
set(CUZK_DOC_DIR ${CMAKE_INSTALL_PREFIX}/share/doc/cuzk)
set(CUZK_UNIT_DIR ${CMAKE_INSTALL_PREFIX}/lib/systemd/system)
set(stage "$ENV{DESTDIR}")
message(STATUS "Installing: ${stage}${CUZK_CONF_DIR}/cuzk.toml")
file(MAKE_DIRECTORY "${stage}${CUZK_CONF_DIR}" "${stage}${CUZK_UNIT_DIR}")
if(EXISTS "${stage}${CUZK_CONF_DIR}/cuzk.toml")
  message(STATUS "Keeping the existing ${stage}${CUZK_CONF_DIR}/cuzk.toml")
else()
  configure_file("${CUZK_SOURCE_DIR}/deploy/cuzk.example.toml" "${stage}${CUZK_CONF_DIR}/cuzk.toml" COPYONLY)
endif()
message(STATUS "Installing: ${stage}${CUZK_UNIT_DIR}/cuzk.service")
configure_file("${CUZK_SOURCE_DIR}/deploy/cuzk.service.in" "${stage}${CUZK_UNIT_DIR}/cuzk.service" @ONLY)
