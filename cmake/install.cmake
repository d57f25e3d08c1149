# Installation and packages (included by the root CMakeLists.txt after src/).
#
#   cmake --install build [--prefix DIR]       binaries, the example config, the systemd unit, docs
#   cpack --config build/CPackConfig.cmake     a .deb: cuzk-cuda (a CUDA build) or cuzk-cpu
#
# Layout under the prefix (GNUInstallDirs): bin/cuzk, bin/cuzk-daemon, bin/cuzk-bench;
# etc/cuzk/cuzk.toml (the example config; /etc/cuzk with the prefix /usr, a conffile in the .deb,
# never overwritten); lib/systemd/system/cuzk.service (its ExecStart names the installed bin/cuzk and
# config); share/doc/cuzk/
# (README, daemon.md, DESIGN.md, the example config, the Grafana dashboard and alert rules).
include(GNUInstallDirs)

install(TARGETS cuzk cuzk-daemon cuzk-bench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cuzk)

# The config and the unit depend on the prefix given at install time (cmake/install_unit.cmake).
install(CODE "set(CUZK_SOURCE_DIR \"${PROJECT_SOURCE_DIR}\")" COMPONENT cuzk)
install(SCRIPT ${PROJECT_SOURCE_DIR}/cmake/install_unit.cmake COMPONENT cuzk)
install(FILES README.md docs/operator.md docs/daemon.md docs/DESIGN.md deploy/cuzk.example.toml DESTINATION ${CMAKE_INSTALL_DOCDIR}
        COMPONENT cuzk)
install(DIRECTORY deploy/grafana deploy/prometheus DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT cuzk)

# The .deb. One package per build; the flavour is the build's: a CUDA build links the CUDA runtime
# statically (only the NVIDIA driver is needed on the host) and carries the architectures of
# CMAKE_CUDA_ARCHITECTURES (by default every one storage providers run, plus PTX).
if(TARGET cuzk_gpu)
  set(CPACK_PACKAGE_NAME cuzk-cuda)
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "nvidia-driver (>= 580) | nvidia-open (>= 580)")
  string(REPLACE ";" " " cuzk_archs "${CMAKE_CUDA_ARCHITECTURES}")
  set(cuzk_flavour "CUDA backend (architectures ${cuzk_archs}) and CPU backend")
else()
  set(CPACK_PACKAGE_NAME cuzk-cpu)
  set(cuzk_flavour "CPU backend only")
endif()
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "cuzk maintainers <cuzk@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Groth16 proving engine and daemon for Filecoin (Curio's cuzk.v1.ProvingEngine)")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "cuzk proves Filecoin PoRep C2, WindowPoSt, WinningPoSt and SnapDeals for Curio over gRPC.\n ${cuzk_flavour}.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION misc)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # Depends: from the binaries' libraries (dpkg-shlibdeps)
set(CPACK_DEBIAN_PACKAGE_CONFLICTS "cuzk-cpu, cuzk-cuda")
set(CPACK_DEBIAN_PACKAGE_PROVIDES cuzk)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_SET_DESTDIR ON)  # staged with DESTDIR, so that /etc/cuzk lands outside the prefix
set(CPACK_INSTALL_PREFIX /usr)  # the prefix of that staged install
set(CPACK_DEB_COMPONENT_INSTALL OFF)
set(CPACK_STRIP_FILES ON)
# /etc/cuzk/cuzk.toml is the operator's: a conffile, kept on upgrade. postinst reloads systemd.
configure_file(${PROJECT_SOURCE_DIR}/deploy/deb/conffiles ${PROJECT_BINARY_DIR}/deb/conffiles COPYONLY)
configure_file(${PROJECT_SOURCE_DIR}/deploy/deb/postinst ${PROJECT_BINARY_DIR}/deb/postinst COPYONLY)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA "${PROJECT_BINARY_DIR}/deb/conffiles;${PROJECT_BINARY_DIR}/deb/postinst")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
