// SPDX-License-Identifier: MIT
#include "client_command.h"

int main(int argc, char** argv) {
  return stallwatch::collector::client_main(argc, argv);
}
