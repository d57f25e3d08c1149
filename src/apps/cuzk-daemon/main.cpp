// cuzk-daemon: the proving daemon under its own name (apps/cuzk-daemon/daemon.hpp); `cuzk --config`
// runs the same code.
#include "apps/cuzk-daemon/daemon.hpp"

int main(int argc, char** argv) { return cuzk::apps::run_daemon_guarded(argc, argv, "cuzk-daemon"); }
