// UgcHeapCapture.cpp — ugc.Capture's work: walk GUObjectArray and write every
// object, its references (with member names and kinds), the FGCObject
// referencers' references and the GC clusters through the capture library.
//
// All formatting (escaping, flag names, length limits, atomic output) is the
// library's; this file only reads the engine.  It reads, never writes: no
// serial number is allocated (FUObjectItem::GetSerialNumber() only reads; no
// weak or soft pointer is assigned), no flag is set, no reference is
// modified.  Engine calls that the research notes (ue-capture.md) mark
// unconfirmed, or do not name, each sit alone in one function below marked
// UNCONFIRMED or NOT IN THE NOTES.
#include "UgcHeapCapture.h"

#include "Misc/EngineVersion.h"
#include "Serialization/ArchiveCountMem.h"
#include "Serialization/ArchiveUObject.h"
#include "UObject/GCObject.h"
#include "UObject/GarbageCollection.h"
#include "UObject/UObjectArray.h"
#include "UObject/UObjectIterator.h"
#include "UObject/UnrealType.h"

#include <chrono>

#include "ugc_capture.h"

// The library names internal flags by the engine's bit values: check them here,
// where the engine's definitions are visible (research notes: ObjectMacros.h).
static_assert((uint32)EInternalObjectFlags::LoaderImport == UGC_IF_LoaderImport, "EInternalObjectFlags moved");
static_assert((uint32)EInternalObjectFlags::Garbage == UGC_IF_Garbage, "EInternalObjectFlags moved");
static_assert((uint32)EInternalObjectFlags::AsyncLoadingPhase1 == UGC_IF_AsyncLoadingPhase1, "EInternalObjectFlags moved");
static_assert((uint32)EInternalObjectFlags::ReachableInCluster == UGC_IF_ReachableInCluster, "EInternalObjectFlags moved");
static_assert((uint32)EInternalObjectFlags::ClusterRoot == UGC_IF_ClusterRoot, "EInternalObjectFlags moved");
static_assert((uint32)EInternalObjectFlags::Native == UGC_IF_Native, "EInternalObjectFlags moved");
static_assert((uint32)EInternalObjectFlags::Async == UGC_IF_Async, "EInternalObjectFlags moved");
static_assert((uint32)EInternalObjectFlags::AsyncLoadingPhase2 == UGC_IF_AsyncLoadingPhase2, "EInternalObjectFlags moved");
static_assert((uint32)EInternalObjectFlags::Unreachable == UGC_IF_Unreachable, "EInternalObjectFlags moved");
static_assert((uint32)EInternalObjectFlags::RefCounted == UGC_IF_RefCounted, "EInternalObjectFlags moved");
static_assert((uint32)EInternalObjectFlags::RootSet == UGC_IF_RootSet, "EInternalObjectFlags moved");
static_assert((uint32)EInternalObjectFlags::PendingConstruction == UGC_IF_PendingConstruction, "EInternalObjectFlags moved");
// EObjectFlags go through unchanged; the library's names follow these values.
static_assert(RF_Public == 0x1 && RF_Standalone == 0x2 && RF_ClassDefaultObject == 0x10 && RF_Transient == 0x40 &&
	RF_BeginDestroyed == 0x8000 && RF_FinishDestroyed == 0x10000 && RF_WasLoaded == 0x80000 &&
	RF_MirroredGarbage == 0x40000000, "EObjectFlags moved");

namespace
{
// Where every record goes: the writer, the first error, and the UTF-8 form
// of each member name met (converted once per FProperty, not per reference).
struct FUgcSink
{
	ugc_writer* Writer = nullptr;
	int Error = UGC_OK;
	TMap<const FProperty*, TArray<ANSICHAR>> Names;

	const char* PropertyName(const FProperty* Prop)
	{
		if (!Prop)
		{
			return nullptr;
		}
		if (TArray<ANSICHAR>* Found = Names.Find(Prop))
		{
			return Found->GetData();
		}
		FTCHARToUTF8 Utf8(*Prop->GetName());
		TArray<ANSICHAR>& Name = Names.Add(Prop);
		Name.Append(Utf8.Get(), Utf8.Length());
		Name.Add('\0');
		return Name.GetData();
	}

	void Ref(int32 From, const UObject* To, ugc_ref_kind Kind, const FProperty* Prop)
	{
		if (To && Error == UGC_OK)
		{
			Error = ugc_writer_ref(Writer, From, (int32)To->GetUniqueID(), Kind, PropertyName(Prop));
		}
	}
};

// The kind of a reference met while serializing member PROP, by reflection
// (research notes: weak, soft and lazy references come from FWeakObjectProperty,
// FSoftObjectProperty, FLazyObjectProperty).  A TWeakObjectPtr keeps nothing
// alive and the GC does not clear it: "soft" in the format.
ugc_ref_kind KindOfProperty(const FProperty* Prop)
{
	if (Prop && (CastField<FWeakObjectProperty>(Prop) || CastField<FSoftObjectProperty>(Prop) ||
		CastField<FLazyObjectProperty>(Prop)))
	{
		return UGC_REF_SOFT;
	}
	return UGC_REF_STRONG;
}

// The archive half of FReferencerFinder's route (research notes): run over
// an object by Class->SerializeBin, it sees every object reference a
// UPROPERTY holds, with GetSerializedProperty() naming the member.
// Unlike FReferencerFinder it does NOT set ArIsModifyingWeakAndStrongReferences:
// with it, FArchiveUObject writes weak and soft pointers back (allocating
// serial numbers) — a capture must not change the heap.
class FUgcPropertyArchive : public FArchiveUObject
{
public:
	explicit FUgcPropertyArchive(FUgcSink& InSink) : Sink(InSink) { MarkAsReferenceCollector(); }

	int32 From = 0;

	virtual FArchive& operator<<(UObject*& Object) override
	{
		const FProperty* Prop = GetSerializedProperty();
		Sink.Ref(From, Object, KindOfProperty(Prop), Prop);
		return *this;
	}

	virtual FString GetArchiveName() const override { return TEXT("FUgcPropertyArchive"); }

private:
	// UNCONFIRMED: that 5.5 still lets a derived archive set the
	// ArIsObjectReferenceCollector bit directly (the notes name the bit, not
	// a setter).  An object reference collector also serializes transient
	// members, as the GC sees them.
	void MarkAsReferenceCollector() { ArIsObjectReferenceCollector = true; }

	FUgcSink& Sink;
};

// The collector half: what AddReferencedObjects reports ("aro"), the
// references it registers for clearing ("weak"), and, for the FGCObject
// referencer, the FGCObjects' references ("g" records).
class FUgcCollector : public FReferenceCollector
{
public:
	FUgcCollector(FUgcSink& InSink, bool bInGCObjects) : Sink(InSink), bGCObjects(bInGCObjects) {}

	int32 From = 0;

	// UNCONFIRMED: the pure virtual every FReferenceCollector::AddReferencedObject
	// overload ends in (its name and parameters are not in the notes).
	virtual void HandleObjectReference(UObject*& Object, const UObject* ReferencingObject,
		const FProperty* ReferencingProperty) override
	{
		if (!Object || Sink.Error != UGC_OK)
		{
			return;
		}
		if (bGCObjects)
		{
			GCObjectReference(Object, ReferencingProperty);
		}
		else
		{
			Sink.Ref(From, Object, UGC_REF_ARO, ReferencingProperty);
		}
	}

	// UNCONFIRMED signature (the notes name the function, not its parameters):
	// a reference the GC would clear rather than follow.  Returning true tells
	// the caller it is handled, as the chain search's collector does.
	virtual bool MarkWeakObjectReferenceForClearing(UObject** WeakReference, UObject* ReferenceOwner) override
	{
		if (WeakReference && !bGCObjects)
		{
			Sink.Ref(From, *WeakReference, UGC_REF_WEAK, nullptr);
		}
		return true;
	}

	virtual bool IsIgnoringArchetypeRef() const override { return false; }
	virtual bool IsIgnoringTransient() const override { return false; }
	// The FGCObject referencer reports its initial references only to a
	// collector that asks (research notes).
	virtual bool NeedsInitialReferences() const override { return true; }

private:
	// The FGCObject being asked, by name (research notes: GCObject.h).
	void GCObjectReference(UObject* Object, const FProperty* ReferencingProperty)
	{
		FGCObject* Holder = FGCObject::GGCObjectReferencer ?
			FGCObject::GGCObjectReferencer->GetCurrentlySerializingObject() : nullptr;
		FString Name = Holder ? Holder->GetReferencerName() : FString();
		if (Name.IsEmpty())
		{
			Name = TEXT("UnnamedFGCObject");
		}
		Sink.Error = ugc_writer_gcref(Sink.Writer, TCHAR_TO_UTF8(*Name), (int32)Object->GetUniqueID(),
			Sink.PropertyName(ReferencingProperty));
	}

	FUgcSink& Sink;
	bool bGCObjects;
};

double Seconds()
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// NOT IN THE NOTES: the engine's version string (Misc/EngineVersion.h).
FString EngineVersionText()
{
	return FEngineVersion::Current().ToString();
}

// UNCONFIRMED as a complete test: a console command runs on the game thread
// from the frame's tick, never inside CollectGarbage (also game thread).  What
// can still be half done between two frames is the previous GC's incremental
// purge: its objects carry Unreachable.  While any does, refuse.  (Whether an
// incremental reachability pass — gc.AllowIncrementalReachability — leaves a
// mark that this misses is not confirmed; the notes name its flag
// UE::GC::Private::GIsIncrementalReachabilityPending but not its export.)
int32 CountUnreachable()
{
	int32 N = 0;
	for (FRawObjectIterator It(false); It; ++It)
	{
		N += (*It)->IsUnreachable() ? 1 : 0;
	}
	return N;
}

// The immutable reference the GC adds in editor builds besides Class and
// Outer (research notes: HandleImmutableReference for ExternalPackage).
// UNCONFIRMED: that UObjectBaseUtility::GetExternalPackageInternal() is the
// public reader 5.5 has for it (the notes name the reference, not the call).
const UObject* ExternalPackage(const UObject* Obj)
{
#if WITH_EDITOR
	if (Obj->HasAnyFlags(RF_HasExternalPackage))
	{
		return Obj->GetExternalPackageInternal();
	}
#endif
	return nullptr;
}

// Bytes the object alone accounts for, as ObjectMemoryAnalyzer counts them.
uint64 ObjectSize(UObject* Obj)
{
	FArchiveCountMem Count(Obj);
	return (uint64)Count.GetMax() + (uint64)Obj->GetResourceSizeBytes(EResourceSizeMode::Exclusive);
}

// Capture traits read from virtual functions (the format's NotReadyForFinishDestroy
// and GameThreadDestroy); IsReadyForFinishDestroy is asked only of objects
// whose destruction has begun, the only ones for which it means anything.
uint32 Traits(UObject* Obj)
{
	uint32 T = 0;
	if (Obj->HasAnyFlags(RF_BeginDestroyed) && !Obj->HasAnyFlags(RF_FinishDestroyed) && !Obj->IsReadyForFinishDestroy())
	{
		T |= UGC_TRAIT_NOT_READY_FOR_FINISH_DESTROY;
	}
	if (!Obj->IsDestructionThreadSafe())
	{
		T |= UGC_TRAIT_GAME_THREAD_DESTROY;
	}
	return T;
}

int WriteObjects(FUgcSink& Sink, bool bSizes)
{
	FUgcPropertyArchive Archive(Sink);
	FUgcCollector Collector(Sink, false);
	for (FRawObjectIterator It(false); It && Sink.Error == UGC_OK; ++It)
	{
		FUObjectItem* Item = *It;
		UObject* Obj = static_cast<UObject*>(Item->Object);
		UObject* Outer = Obj->GetOuter();
		FTCHARToUTF8 Name(*Obj->GetFName().ToString());
		ugc_object Rec;
		Rec.index = (int32)It.GetIndex();
		Rec.serial = (uint32)Item->GetSerialNumber();
		Rec.class_index = (int32)Obj->GetClass()->GetUniqueID();
		Rec.outer_index = Outer ? (int32)Outer->GetUniqueID() : UGC_NONE;
		Rec.name = Name.Get();
		Rec.size = bSizes ? ObjectSize(Obj) : 0;
		Rec.object_flags = (uint32)Obj->GetFlags();
		Rec.internal_flags = (uint32)Item->GetFlags();
		Rec.traits = Traits(Obj);
		Sink.Error = ugc_writer_object(Sink.Writer, &Rec);
		if (Sink.Error != UGC_OK)
		{
			break;
		}
		// Class and Outer are implicit immutable references: not written.
		Sink.Ref(Rec.index, ExternalPackage(Obj), UGC_REF_IMMUTABLE, nullptr);
		Archive.From = Rec.index;
		Obj->GetClass()->SerializeBin(Archive, Obj);
		// The FGCObject referencer's references are written as "g" records
		// (WriteGCObjectReferences), not as its own.
		if (Obj != FGCObject::GGCObjectReferencer)
		{
			Collector.From = Rec.index;
			Obj->GetClass()->CallAddReferencedObjects(Obj, Collector);
		}
	}
	return Sink.Error;
}

int WriteGCObjectReferences(FUgcSink& Sink)
{
	if (FGCObject::GGCObjectReferencer && Sink.Error == UGC_OK)
	{
		FUgcCollector Collector(Sink, true);
		UGCObjectReferencer::AddReferencedObjects(FGCObject::GGCObjectReferencer, Collector);
	}
	return Sink.Error;
}

int WriteClusters(ugc_writer* Writer)
{
	for (const FUObjectCluster& C : GUObjectClusters.GetClustersUnsafe())
	{
		if (C.RootIndex == INDEX_NONE) // a free slot
		{
			continue;
		}
		const int Rc = ugc_writer_cluster(Writer, C.RootIndex, C.Objects.GetData(), (size_t)C.Objects.Num(),
			C.MutableObjects.GetData(), (size_t)C.MutableObjects.Num(),
			C.ReferencedClusters.GetData(), (size_t)C.ReferencedClusters.Num());
		if (Rc != UGC_OK)
		{
			return Rc;
		}
	}
	return UGC_OK;
}

int WriteHeader(ugc_writer* Writer)
{
	int Rc = ugc_writer_engine(Writer, TCHAR_TO_UTF8(*EngineVersionText()));
	// GARBAGE_COLLECTION_KEEPFLAGS is RF_Standalone in the editor (research notes)
	if (Rc == UGC_OK) Rc = ugc_writer_mode(Writer, GIsEditor ? 1 : 0);
	if (Rc == UGC_OK) Rc = ugc_writer_first_gc_index(Writer, GUObjectArray.GetFirstGCIndex());
	if (Rc == UGC_OK) Rc = ugc_writer_label(Writer, "ugc.Capture");
	return Rc;
}
} // namespace

bool UgcCaptureHeap(const FUgcCaptureOptions& Options, FOutputDevice& Out)
{
	const double Start = Seconds();
	if (const int32 Pending = CountUnreachable())
	{
		Out.Logf(TEXT("ugc.Capture: %d objects are still being purged by the last garbage collection; ")
			TEXT("run ugc.Capture again on a later frame"), Pending);
		return false;
	}
	ugc_options Opt = UGC_OPTIONS_INIT;
	Opt.overwrite = 1;
	ugc_writer* Writer = nullptr;
	char Err[512];
	if (ugc_writer_open(&Writer, TCHAR_TO_UTF8(*Options.Path), &Opt, Err, sizeof Err) != UGC_OK)
	{
		Out.Logf(TEXT("ugc.Capture: %s"), UTF8_TO_TCHAR(Err));
		return false;
	}
	FUgcSink Sink;
	Sink.Writer = Writer;
	Sink.Error = WriteHeader(Writer);
	// No object index is allocated or freed while the array is locked (an
	// async loading thread creating objects waits), so the walk sees one heap.
	GUObjectArray.LockInternalArray();
	if (Sink.Error == UGC_OK) WriteObjects(Sink, Options.bSizes);
	if (Sink.Error == UGC_OK) WriteGCObjectReferences(Sink);
	if (Sink.Error == UGC_OK) Sink.Error = WriteClusters(Writer);
	GUObjectArray.UnlockInternalArray();

	if (Sink.Error != UGC_OK)
	{
		Out.Logf(TEXT("ugc.Capture: %s"), UTF8_TO_TCHAR(ugc_writer_error(Writer)));
		ugc_writer_abort(Writer);
		return false;
	}
	ugc_stats Stats;
	if (ugc_writer_close(Writer, &Stats, Err, sizeof Err) != UGC_OK)
	{
		Out.Logf(TEXT("ugc.Capture: %s"), UTF8_TO_TCHAR(Err));
		return false;
	}
	Out.Logf(TEXT("ugc.Capture: wrote %s: %llu objects, %llu references, %llu FGCObject references, %llu clusters, ")
		TEXT("%.1f MiB in %.2f s (%llu names cut to the format's limits)"),
		*Options.Path, (unsigned long long)Stats.objects, (unsigned long long)Stats.refs,
		(unsigned long long)Stats.gcrefs, (unsigned long long)Stats.clusters,
		(double)Stats.file_bytes / (1024.0 * 1024.0), Seconds() - Start, (unsigned long long)Stats.names_cut);
	return true;
}
