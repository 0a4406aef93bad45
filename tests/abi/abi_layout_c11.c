/* The ABI headers compile as strict C11 and keep their 1.0 layout. */
#include "abi_layout.h"

int main(void) { return 0; }
