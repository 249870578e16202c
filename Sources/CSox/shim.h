#pragma once
// SoX's effects library: equalizer, reverb, chorus and the other classic voice effects.
#include <sox.h>
