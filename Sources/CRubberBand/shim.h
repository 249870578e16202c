#pragma once
// Rubber Band: pitch shifting and time stretching of audio.
#include <rubberband/rubberband-c.h>
