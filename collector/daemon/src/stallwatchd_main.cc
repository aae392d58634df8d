// SPDX-License-Identifier: MIT
#include "stallwatchd_command.h"

int main(int argc, char** argv) {
  return stallwatch::collector::stallwatchd_main(argc, argv);
}
