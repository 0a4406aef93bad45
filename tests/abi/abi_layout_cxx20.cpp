// The ABI headers compile as strict C++20 and keep their 1.0 layout.
#include "abi_layout.h"

int main() { return 0; }
