import AgoraishWire

print("agoraish-token")
