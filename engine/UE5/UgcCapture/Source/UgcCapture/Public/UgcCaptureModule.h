// UgcCaptureModule.h — the UgcCapture module: registers nothing at startup
// beyond the console command ugc.Capture (a static FAutoConsoleCommand in
// UgcCaptureModule.cpp), so loading the plugin costs nothing until it is used.
#pragma once

#include "Modules/ModuleInterface.h"

class FUgcCaptureModule : public IModuleInterface
{
public:
	virtual void StartupModule() override {}
	virtual void ShutdownModule() override {}
};
