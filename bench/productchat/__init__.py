"""An evaluation of the product as it is used: user chats replayed through the HTTP API, scored per split."""
