// SPDX-License-Identifier: MIT
#include "stallwatch_command.h"

int main(int argc, char** argv) {
  return stallwatch::collector::stallwatch_main(argc, argv);
}
